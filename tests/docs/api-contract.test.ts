/**
 * docs/api.md is the contract users read: its status table must say what scoring does. The rule
 * order, statuses and base scores are read from the page and compared with `BASE_SCORES` and
 * `scoreReport`'s reasons, so a change of either without the other fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REASONS, STATUS_NAMES } from '../../src/verification/report.ts';
import { BASE_SCORES, CATCH_ALL_BAND, MODIFIERS } from '../../src/verification/scoring.ts';

const page = readFileSync('docs/api.md', 'utf8');
const section = page.slice(page.indexOf('### Status and score'), page.indexOf('### Sender feedback'));

interface Row {
  status: string;
  score: string;
  reasons: string[];
}
const rows: Row[] = section
  .split('\n')
  .filter((line) => /^\| \d+ \|/.test(line))
  .map((line) => {
    const cells = line.split('|').map((cell) => cell.trim());
    return {
      status: cells[3]!.replaceAll('`', ''),
      score: cells[4]!,
      reasons: [...cells[5]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!),
    };
  });

test('the page has the status table, one row per rule', () => {
  assert.equal(rows.length, 14);
});

test('each documented row gives the status, score and reasons scoring gives', () => {
  const expected: Array<[string, number[], string[]]> = [
    ['INVALID_SYNTAX', [BASE_SCORES.syntaxInvalid], ['syntax_invalid']],
    ['INVALID_DOMAIN', [BASE_SCORES.domainNotFound], ['domain_not_found']],
    ['NO_MX_RECORDS', [BASE_SCORES.noMailHost], ['null_mx', 'no_mail_host']],
    ['NO_MX_RECORDS', [BASE_SCORES.implicitMx], ['implicit_mx']],
    ['INVALID', [BASE_SCORES.mailboxRejected], ['mailbox_rejected', 'mailbox_disabled']],
    ['INVALID', [BASE_SCORES.multipleRisks], ['multiple_risks']],
    ['DISPOSABLE', [BASE_SCORES.disposable], ['disposable']],
    ['ROLE_BASED', [BASE_SCORES.roleBased], ['role_account']],
    [
      'VALID',
      [BASE_SCORES.confirmedNotCatchAll, BASE_SCORES.confirmedCatchAllUnknown],
      ['mailbox_confirmed'],
    ],
    ['PROBABLY_VALID', [BASE_SCORES.catchAll, CATCH_ALL_BAND.low, CATCH_ALL_BAND.high], ['catch_all']],
    ['PROBABLY_VALID', [BASE_SCORES.mailboxFull], ['mailbox_full']],
    [
      'PROBABLY_VALID',
      [BASE_SCORES.probeInconclusive],
      [
        'greylisted',
        'blocked',
        'policy',
        'message_refused',
        'system_error',
        'timeout',
        'connect_failed',
        'tls_failed',
        'protocol_error',
        'probe_refused',
      ],
    ],
    ['PROBABLY_VALID', [BASE_SCORES.dnsError], ['dns_error']],
    ['PROBABLY_VALID', [BASE_SCORES.probeSkipped], ['probe_skipped']],
  ];
  expected.forEach(([status, scores, reasons], index) => {
    const row = rows[index]!;
    assert.equal(row.status, status, `row ${index + 1}`);
    const documented = [...row.score.matchAll(/\d+/g)].map((match) => Number(match[0]));
    assert.deepEqual(documented, scores, `row ${index + 1}'s scores`);
    assert.deepEqual(row.reasons, reasons, `row ${index + 1}'s reasons`);
  });
});

test('every status and reason is documented, and the modifiers with their figures', () => {
  for (const status of STATUS_NAMES) assert.match(section, new RegExp(`\`${status}\``));
  const documented = new Set(rows.flatMap((row) => row.reasons));
  for (const reason of REASONS) {
    if (reason === 'bounced') assert.match(section, /`reason: "bounced"`/);
    else assert.ok(documented.has(reason), `${reason} is not in the table`);
  }
  assert.match(section, new RegExp(`typo suggestion −${-MODIFIERS.typoSuggestion}`));
  assert.match(section, new RegExp(`address literal −${-MODIFIERS.quotedOrLiteral}`));
});
