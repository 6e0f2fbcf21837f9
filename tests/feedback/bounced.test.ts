/**
 * The feedback rule and the event check, as pure functions: which feedback makes an address
 * bounced, what a bounced result looks like, which verdicts a bounce leaves alone, the address
 * identity (case and Unicode folded, IDNA domain) and what an event's fields must be.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bouncedResult, isBounced, mayBeBounced } from '../../src/feedback/bounced.ts';
import { checkEvent, feedbackAddressOf } from '../../src/feedback/feedback-address.ts';
import type { Status, VerificationResult } from '../../src/verification/report.ts';

const NONE = { hard_bounce: null, soft_bounce: null, delivered: null, complaint: null };
const NOW = new Date('2026-11-26T12:00:00.000Z');

describe('isBounced', () => {
  it('is true for a hard bounce with no delivery after it', () => {
    assert.equal(isBounced({ ...NONE, hard_bounce: '2026-01-02T00:00:00.000Z' }), true);
    assert.equal(
      isBounced({ ...NONE, hard_bounce: '2026-01-02T00:00:00.000Z', delivered: '2026-01-01T00:00:00.000Z' }),
      true,
    );
    assert.equal(
      isBounced({ ...NONE, hard_bounce: '2026-01-02T00:00:00.000Z', delivered: '2026-01-02T00:00:00.000Z' }),
      true,
      'a delivery at the same instant does not lift it',
    );
  });

  it('is false without a hard bounce, or with a later delivery; soft bounces and complaints never count', () => {
    assert.equal(isBounced(NONE), false);
    assert.equal(
      isBounced({ ...NONE, hard_bounce: '2026-01-02T00:00:00.000Z', delivered: '2026-01-02T00:00:00.001Z' }),
      false,
    );
    assert.equal(
      isBounced({ ...NONE, soft_bounce: '2026-01-02T00:00:00.000Z', complaint: '2026-01-03T00:00:00.000Z' }),
      false,
    );
  });
});

function resultOf(status: Status): VerificationResult {
  return {
    email: 'Jane@Example.test',
    checks: {
      syntax: true,
      domain_exists: true,
      mx_records: true,
      mailbox_exists: true,
      disposable: false,
      role_based: false,
      suggestions: [],
      free_provider: false,
      catch_all: false,
      smtp: 'deliverable',
    },
    score: 97,
    status,
    reason: 'mailbox_confirmed',
    duration_ms: 12,
  } as unknown as VerificationResult;
}

describe('bouncedResult and mayBeBounced', () => {
  it('makes the result INVALID, bounced, 5, mailbox gone; every other field as verified', () => {
    const verified = resultOf('VALID');
    const bounced = bouncedResult(verified);
    assert.equal(bounced.status, 'INVALID');
    assert.equal(bounced.reason, 'bounced');
    assert.equal(bounced.score, 5);
    assert.equal(bounced.checks.mailbox_exists, false);
    assert.deepEqual({ ...bounced.checks, mailbox_exists: true }, verified.checks);
    assert.equal(bounced.email, verified.email);
    assert.equal(bounced.duration_ms, verified.duration_ms);
    assert.equal(verified.status, 'VALID', 'the verified result is not changed in place');
  });

  it('leaves unaddressable verdicts alone and overrides every other one', () => {
    for (const status of ['INVALID_SYNTAX', 'INVALID_DOMAIN', 'NO_MX_RECORDS'] as const)
      assert.equal(mayBeBounced(resultOf(status)), false, status);
    for (const status of ['VALID', 'PROBABLY_VALID', 'INVALID', 'DISPOSABLE', 'ROLE_BASED'] as const)
      assert.equal(mayBeBounced(resultOf(status)), true, status);
  });
});

describe('feedbackAddressOf', () => {
  it('folds case, trims, composes Unicode and converts the domain to ASCII', () => {
    assert.deepEqual(feedbackAddressOf('  Jane.Doe@Example.TEST '), {
      address: 'jane.doe@example.test',
      domain: 'example.test',
    });
    assert.deepEqual(feedbackAddressOf('Ame\u0301lie@Bücher.test'), {
      address: 'amélie@xn--bcher-kva.test',
      domain: 'xn--bcher-kva.test',
    });
  });

  it('is null for what is not an address', () => {
    for (const bad of [
      '',
      'no-at-sign',
      '@example.test',
      'jane@',
      'a b@example.test',
      `${'x'.repeat(65)}@example.test`,
    ])
      assert.equal(feedbackAddressOf(bad), null, bad);
  });
});

describe('checkEvent', () => {
  it('gives the record, `at` in UTC with milliseconds, now when absent', () => {
    assert.deepEqual(
      checkEvent({ email: 'a@b.test', event: 'hard_bounce', at: '2026-11-20T10:15:00+02:00' }, NOW),
      {
        address: 'a@b.test',
        domain: 'b.test',
        event: 'hard_bounce',
        at: '2026-11-20T08:15:00.000Z',
      },
    );
    assert.equal(
      (checkEvent({ email: 'a@b.test', event: 'delivered' }, NOW) as { at: string }).at,
      NOW.toISOString(),
    );
  });

  it('names the field at fault', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ email: 'not an address', event: 'hard_bounce' }, 'email'],
      [{ email: 'a@b.test', event: 'bounced' }, 'event'],
      [{ email: 'a@b.test', event: 'HARD_BOUNCE' }, 'event'],
      [{ email: 'a@b.test', event: 'delivered', at: 'yesterday' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '2026-11-20T10:15:00' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '2026-11-20' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '1969-12-31T23:59:59Z' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '2026-02-30T00:00:00Z' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '2026-10-01T24:30:00Z' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '2026-11-26T12:06:00Z' }, 'at'],
      [{ email: 'a@b.test', event: 'delivered', at: '+275760-09-13T00:00:00Z' }, 'at'],
    ];
    for (const [submitted, field] of cases) {
      const checked = checkEvent(submitted as { email: string; event: string; at?: string }, NOW);
      assert.equal((checked as { field?: string }).field, field, JSON.stringify(submitted));
    }
    // A little ahead of our clock is accepted: clocks disagree.
    assert.equal(
      (
        checkEvent({ email: 'a@b.test', event: 'delivered', at: '2026-11-26T12:04:00Z' }, NOW) as {
          at: string;
        }
      ).at,
      '2026-11-26T12:04:00.000Z',
    );
  });
});
