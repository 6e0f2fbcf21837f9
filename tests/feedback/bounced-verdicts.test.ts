/**
 * The `bounced` verdict on /verify and /verify/bulk (real app, real verifier over the DNS world,
 * the result cache on): an address the account reported hard-bounced is INVALID `bounced` for
 * every key of that account, and for no other account, even when the result comes from the shared
 * cache; a later `delivered` lifts it; an unaddressable verdict keeps its own reason; a bounced
 * result is charged like any other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { BULK, post, VERIFY } from '../http/expect.ts';

// These tests send feedback faster than an account's pace allows (the pace has its own test).
const UNPACED = { MAILVET_FEEDBACK_REQUESTS_PER_SECOND: '1000' };

let t: TestApp;
let sameAccountKey: string;
let otherAccountKey: string;
before(async () => {
  t = await testApp({ rate: 1000, quota: 1000, resultTtlSeconds: 3600, env: UNPACED });
  sameAccountKey = (await t.addKey({ accountId: t.keyRecord.accountId, rate: 1000 })).key;
  otherAccountKey = (await t.addKey({ rate: 1000, quota: 1000 })).key;
});
after(() => t?.close());

async function verify(email: string, key = t.key) {
  const response = await post(t.app, VERIFY, { email }, t.auth(key));
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function feedback(email: string, event: string, at: string, key = t.key) {
  const response = await post(t.app, '/api/v1/feedback', { email, event, at }, t.auth(key));
  assert.equal(response.statusCode, 200, response.body);
}

describe('bounced', () => {
  it('is the verdict for the account that reported it, and only for it', async () => {
    const before = await verify('jane@multi-mx.test');
    assert.equal(before.status, 'PROBABLY_VALID');
    assert.equal(before.reason, 'probe_skipped');

    await feedback('Jane@Multi-MX.test', 'hard_bounce', '2026-09-01T00:00:00Z');
    const usedBefore = (await t.accountUsage()).verifications;
    const bounced = await verify('jane@multi-mx.test');
    assert.equal(bounced.status, 'INVALID');
    assert.equal(bounced.reason, 'bounced');
    assert.equal(bounced.score, 5);
    assert.equal(bounced.checks.mailbox_exists, false);
    assert.equal(bounced.checks.mx_records, true, 'the other checks are as verified');
    assert.equal(bounced.email, 'jane@multi-mx.test');
    assert.equal((await t.accountUsage()).verifications, usedBefore + 1, 'charged like any verification');

    assert.equal(
      (await verify('jane@multi-mx.test', sameAccountKey)).reason,
      'bounced',
      'another key of the account',
    );
    const theirs = await verify('jane@multi-mx.test', otherAccountKey);
    assert.equal(theirs.status, 'PROBABLY_VALID', 'another account: the same cached result, untouched');
    assert.equal(theirs.reason, 'probe_skipped');
    assert.equal(theirs.checks.mailbox_exists, true);
  });

  it('applies to every matching entry of a bulk request, for that account only', async () => {
    await feedback('bulk.bounce@multi-mx.test', 'hard_bounce', '2026-09-01T00:00:00Z');
    const emails = ['bulk.bounce@multi-mx.test', 'bulk.fine@multi-mx.test', 'BULK.Bounce@multi-mx.test'];
    const mine = await post(t.app, BULK, { emails }, t.auth());
    assert.equal(mine.statusCode, 200, mine.body);
    assert.deepEqual(
      mine.json().results.map((result: { reason: string }) => result.reason),
      ['bounced', 'probe_skipped', 'bounced'],
    );
    const theirs = await post(t.app, BULK, { emails }, t.auth(otherAccountKey));
    assert.deepEqual(
      theirs.json().results.map((result: { reason: string }) => result.reason),
      ['probe_skipped', 'probe_skipped', 'probe_skipped'],
    );
  });

  it('is lifted by a later delivery, not by an earlier one, a soft bounce or a complaint', async () => {
    const address = 'lifted@multi-mx.test';
    await feedback(address, 'hard_bounce', '2026-09-10T00:00:00Z');
    await feedback(address, 'delivered', '2026-09-09T00:00:00Z');
    await feedback(address, 'soft_bounce', '2026-09-11T00:00:00Z');
    await feedback(address, 'complaint', '2026-09-12T00:00:00Z');
    assert.equal((await verify(address)).reason, 'bounced');
    await feedback(address, 'delivered', '2026-09-10T00:00:01Z');
    const lifted = await verify(address);
    assert.equal(lifted.status, 'PROBABLY_VALID');
    assert.equal(lifted.reason, 'probe_skipped');
    await feedback(address, 'hard_bounce', '2026-09-20T00:00:00Z');
    assert.equal((await verify(address)).reason, 'bounced', 'a bounce after the delivery counts again');
  });

  it('leaves an unaddressable verdict its own reason', async () => {
    const address = 'someone@no-such-domain.test';
    const first = await verify(address);
    assert.equal(first.status, 'INVALID_DOMAIN');
    await feedback(address, 'hard_bounce', '2026-09-01T00:00:00Z');
    const after = await verify(address);
    assert.equal(after.status, 'INVALID_DOMAIN');
    assert.equal(after.reason, first.reason);
  });
});
