/**
 * Conformance with the isemail mailbox view: at least 99% agreement on each suite,
 * and every differing row explained in tests/fixtures/syntax-divergences.json, which must stay
 * honest (a listed row that agrees again fails the test too).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { checkAddressSyntax } from '../../../src/verification/checks/syntax.ts';
import type { SyntaxErrorCode } from '../../../src/verification/report.ts';
import fixture from '../../fixtures/syntax-divergences.json' with { type: 'json' };

type Verdict = 'valid' | 'invalid';

interface SuiteRow {
  address: string;
  expected: Verdict;
  source: string;
}

interface Divergence {
  suite: string;
  source: string;
  address: string;
  expected: Verdict;
  actual: Verdict;
  reason: string;
}

const MIN_AGREEMENT = 0.99;
const SYNTAX_ERRORS: readonly SyntaxErrorCode[] = [
  'empty',
  'no_at_sign',
  'no_local_part',
  'no_domain',
  'local_part_too_long',
  'domain_too_long',
  'address_too_long',
  'label_too_long',
  'invalid_local_part',
  'invalid_domain',
  'invalid_address_literal',
  'idna_failed',
];
const SUITES = ['isemail-tests', 'isemail-tests-original'] as const;
const divergences = fixture.divergences as Divergence[];

function loadSuite(name: string): SuiteRow[] {
  const url = new URL(`../../fixtures/conformance/syntax/${name}.jsonl`, import.meta.url);
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SuiteRow);
}

function key(source: string, address: string): string {
  return `${source}\u0000${address}`;
}

for (const suite of SUITES) {
  describe(`syntax conformance: ${suite} (mailbox view)`, () => {
    const rows = loadSuite(suite);
    const listed = new Map(
      divergences.filter((d) => d.suite === suite).map((d) => [key(d.source, d.address), d]),
    );
    const results = rows.map((row) => ({ row, check: checkAddressSyntax(row.address) }));
    const differing = results.filter(
      ({ row, check }) => (check.valid ? 'valid' : 'invalid') !== row.expected,
    );

    test('the suite is there and holds both verdicts', () => {
      assert.ok(rows.length > 100, `${suite} has only ${rows.length} rows`);
      assert.ok(rows.some((r) => r.expected === 'valid'));
      assert.ok(rows.some((r) => r.expected === 'invalid'));
    });

    test(`agrees with expected on at least ${MIN_AGREEMENT * 100}% of rows`, () => {
      const agreement = (rows.length - differing.length) / rows.length;
      assert.ok(
        agreement >= MIN_AGREEMENT,
        `agreement ${(agreement * 100).toFixed(2)}% (${differing.length} of ${rows.length} rows differ)`,
      );
    });

    test('every differing row is listed in the divergence fixture', () => {
      const unexplained = differing
        .filter(({ row }) => !listed.has(key(row.source, row.address)))
        .map(
          ({ row, check }) =>
            `${row.source} ${JSON.stringify(row.address)}: expected ${row.expected}, got ${JSON.stringify(check)}`,
        );
      assert.deepEqual(unexplained, []);
    });

    test('every listed row still differs, as the fixture says, with a reason', () => {
      const bySource = new Map(results.map((r) => [key(r.row.source, r.row.address), r]));
      for (const divergence of listed.values()) {
        const result = bySource.get(key(divergence.source, divergence.address));
        assert.ok(result, `fixture row not in the suite: ${divergence.source}`);
        assert.equal(result.row.expected, divergence.expected, divergence.source);
        assert.equal(
          result.check.valid ? 'valid' : 'invalid',
          divergence.actual,
          `${divergence.source} agrees now`,
        );
        assert.notEqual(divergence.expected, divergence.actual);
        assert.ok(divergence.reason.length > 40, `${divergence.source} needs a real reason`);
      }
    });

    test('every invalid verdict names an error and a message', () => {
      for (const { row, check } of results) {
        if (check.valid) continue;
        assert.ok(check.message.length > 10, `${JSON.stringify(row.address)}: empty message`);
        assert.ok(
          SYNTAX_ERRORS.includes(check.error),
          `${JSON.stringify(row.address)}: unknown error ${check.error}`,
        );
      }
    });
  });
}

test('the divergence fixture names only the isemail suites', () => {
  for (const divergence of divergences) assert.ok((SUITES as readonly string[]).includes(divergence.suite));
});
