import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toVerificationResult } from '../../src/verification/result.ts';
import { scoreReport } from '../../src/verification/scoring.ts';
import { type ReportChange, report, smtp } from './report-builder.ts';

const resultOf = (change: ReportChange = {}) => {
  const built = report(change);
  return toVerificationResult(built, scoreReport(built));
};

describe('toVerificationResult', () => {
  it('has every documented field, always', () => {
    const result = resultOf();
    assert.deepEqual(Object.keys(result).sort(), [
      'checks',
      'duration_ms',
      'email',
      'evidence',
      'reason',
      'score',
      'status',
    ]);
    assert.deepEqual(Object.keys(result.checks).sort(), [
      'catch_all',
      'catch_all_confidence',
      'disposable',
      'domain_exists',
      'free_provider',
      'mailbox_exists',
      'mx_records',
      'role_based',
      'smtp',
      'suggestions',
      'syntax',
    ]);
  });

  it('a confirmed mailbox exists', () => {
    const { checks } = resultOf();
    assert.equal(checks.mailbox_exists, true);
    assert.equal(checks.mx_records, true);
    assert.equal(checks.smtp, 'deliverable');
    assert.equal(checks.catch_all, false);
  });

  it('a rejected mailbox does not exist', () => {
    assert.equal(resultOf({ smtp: smtp('undeliverable') }).checks.mailbox_exists, false);
    assert.equal(resultOf({ smtp: smtp('mailbox_disabled') }).checks.mailbox_exists, false);
  });

  it('an undecided probe at a domain that accepts mail means "likely exists"', () => {
    for (const probe of [
      smtp('catch_all', true),
      smtp('unknown', null, 'greylisted'),
      smtp('skipped', null, 'probe_skipped'),
    ]) {
      assert.equal(resultOf({ smtp: probe }).checks.mailbox_exists, true);
    }
  });

  it('a domain that cannot receive mail has no mailbox', () => {
    for (const dns of [
      { outcome: 'nxdomain' },
      { outcome: 'null_mx' },
      { outcome: 'no_mail_host' },
    ] as const) {
      const { checks } = resultOf({ dns, smtp: null });
      assert.equal(checks.mailbox_exists, false);
      assert.equal(checks.mx_records, false);
      assert.equal(checks.smtp, 'skipped');
    }
    assert.equal(resultOf({ dns: { outcome: 'nxdomain' }, smtp: null }).checks.domain_exists, false);
    assert.equal(resultOf({ dns: { outcome: 'null_mx' }, smtp: null }).checks.domain_exists, true);
  });

  it('our DNS failure disproves nothing', () => {
    const { checks, status } = resultOf({
      dns: { outcome: 'error', failure: 'timeout', retry: true },
      smtp: null,
    });
    assert.equal(checks.domain_exists, true);
    assert.equal(checks.mailbox_exists, true);
    assert.equal(status, 'PROBABLY_VALID');
  });

  it('a 250 at a catch-all domain is reported as catch_all', () => {
    assert.equal(resultOf({ smtp: smtp('deliverable', true) }).checks.smtp, 'catch_all');
  });

  it('invalid syntax: every check false, nothing claimed', () => {
    const result = resultOf({
      syntax: { valid: false, error: 'no_at_sign', message: 'x' },
      dns: null,
      smtp: null,
    });
    assert.equal(result.checks.syntax, false);
    assert.equal(result.checks.domain_exists, false);
    assert.equal(result.checks.mailbox_exists, false);
    assert.equal(result.checks.catch_all, null);
    assert.equal(result.checks.smtp, 'skipped');
    assert.equal(result.status, 'INVALID_SYNTAX');
  });
});
