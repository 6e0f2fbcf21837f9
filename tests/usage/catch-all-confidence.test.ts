/**
 * Catch-all confidence per account, through the real parts: the API on the composition root, the
 * real verifier probing the mail world's catch-all SMTP host on loopback, the domain's SPF and
 * DMARC from the world's DNS server, the account's feedback in SQLite, and the shared result cache.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createVerifier } from '../../src/container/index.ts';
import { CATCH_ALL_BAND } from '../../src/verification/scoring.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { post, VERIFY } from '../http/expect.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';

let world: MailWorld;
let t: TestApp;
let otherKey: string;

interface Signal {
  signal: string;
  weight: number;
  detail: string;
}
interface Result {
  status: string;
  reason: string;
  score: number;
  checks: { catch_all: boolean | null; catch_all_confidence: number | null };
  evidence: { catch_all_signals: Signal[] };
}

/** A domain whose MX is the world's catch-all host, with these TXT records. */
function catchAllDomain(domain: string, txt: { spf?: string; dmarc?: string } = {}): void {
  const { dns, hosts } = world;
  dns.zones[domain] = {
    mx: [{ exchange: `mx.${domain}`, priority: 10 }],
    ...(txt.spf !== undefined && { txt: [txt.spf] }),
  };
  dns.zones[`mx.${domain}`] = { a: [hosts['catch-all'].host] };
  if (txt.dmarc !== undefined) dns.zones[`_dmarc.${domain}`] = { txt: [txt.dmarc] };
}

before(async () => {
  world = await startMailWorld();
  catchAllDomain('strict-posture.test', { spf: 'v=spf1 -all', dmarc: 'v=DMARC1; p=reject' });
  catchAllDomain('lax-posture.test', { spf: 'v=spf1 ?all', dmarc: 'v=DMARC1; p=none' });
  catchAllDomain('bouncy.test');
  const verifier = await createVerifier(
    loadConfig({ ...world.env, MAILVET_SMTP_HELO: 'probe.mailvet.test' }),
  );
  t = await testApp({ rate: 1000, quota: 1000, resultTtlSeconds: 3600, verifier, env: world.env });
  otherKey = (await t.addKey({ rate: 1000, quota: 1000 })).key;
});
after(async () => {
  await t?.close();
  await world?.close();
});

async function verify(email: string, key = t.key): Promise<Result> {
  const response = await post(t.app, VERIFY, { email }, t.auth(key));
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as Result;
}

const names = (result: Result) => result.evidence.catch_all_signals.map((signal) => signal.signal);

function assertInBand(result: Result): void {
  assert.equal(result.status, 'PROBABLY_VALID');
  assert.equal(result.reason, 'catch_all');
  assert.ok(result.score >= CATCH_ALL_BAND.low && result.score <= CATCH_ALL_BAND.high, String(result.score));
  assert.equal(typeof result.checks.catch_all_confidence, 'number');
}

describe('catch-all confidence on /verify', () => {
  it('tells a name-like local part from a keyboard mash, with the signals in the response', async () => {
    const person = await verify('james.wilson@catchall.test');
    const mash = await verify('qwxzkjhv@catchall.test');
    assertInBand(person);
    assertInBand(mash);
    assert.ok(person.checks.catch_all_confidence! > mash.checks.catch_all_confidence!);
    assert.ok(person.score > mash.score);
    assert.ok(names(person).includes('name_like'), JSON.stringify(person.evidence));
    assert.ok(names(mash).includes('gibberish'), JSON.stringify(mash.evidence));
    for (const signal of mash.evidence.catch_all_signals) {
      assert.equal(typeof signal.weight, 'number');
      assert.ok(signal.detail.length > 0);
    }
  });

  it("reads the domain's SPF and DMARC from DNS", async () => {
    const strict = await verify('ann.lee@strict-posture.test');
    const lax = await verify('ann.lee@lax-posture.test');
    assert.ok(
      names(strict).includes('spf_sane') && names(strict).includes('dmarc_enforced'),
      String(names(strict)),
    );
    assert.ok(names(lax).includes('spf_weak') && names(lax).includes('dmarc_monitoring'), String(names(lax)));
    assert.ok(strict.checks.catch_all_confidence! > lax.checks.catch_all_confidence!);
    const bare = await verify('ann.lee@bouncy.test');
    assert.ok(
      names(bare).includes('spf_absent') && names(bare).includes('dmarc_absent'),
      String(names(bare)),
    );
  });

  it('leaves a result that is not a catch-all verdict untouched', async () => {
    const confirmed = await verify('alice@accept.test');
    assert.equal(confirmed.status, 'VALID');
    assert.equal(confirmed.checks.catch_all, false);
    assert.equal(confirmed.checks.catch_all_confidence, null);
    assert.deepEqual(confirmed.evidence.catch_all_signals, []);
    const rejected = await verify('nobody-here@accept.test');
    assert.equal(rejected.checks.catch_all_confidence, null);
    assert.deepEqual(rejected.evidence.catch_all_signals, []);
  });

  it("moves one account's confidence by its own bounces at the domain, from the shared cache", async () => {
    const address = 'mary.jones@bouncy.test';
    // An account of its own: a domain's context is reused for 30 s, so this one's is read after its bounces.
    const mineKey = (await t.addKey({ rate: 1000, quota: 1000 })).key;
    const theirsBefore = await verify(address, otherKey);
    assertInBand(theirsBefore);
    const sessions = world.hosts['catch-all'].stats.connections;
    // One bulk request, as a sender reports a batch of bounces (single requests are paced).
    const events = ['ann.bell', 'bo.chan', 'cy.diaz', 'dee.east'].map((local) => ({
      email: `${local}@bouncy.test`,
      event: 'hard_bounce',
      at: '2026-09-01T00:00:00Z',
    }));
    const response = await post(t.app, '/api/v1/feedback/bulk', { events }, t.auth(mineKey));
    assert.equal(response.statusCode, 200, response.body);
    const mine = await verify(address, mineKey);
    assertInBand(mine);
    assert.equal(world.hosts['catch-all'].stats.connections, sessions, 'answered from the result cache');
    assert.ok(mine.checks.catch_all_confidence! < theirsBefore.checks.catch_all_confidence!);
    assert.ok(mine.score < theirsBefore.score);
    const feedback = mine.evidence.catch_all_signals.find(
      (signal) => signal.signal === 'feedback_bounce_rate',
    );
    assert.ok(feedback !== undefined && feedback.weight < 0, JSON.stringify(mine.evidence));
    assert.match(feedback.detail, /4 hard bounces of 4/);

    const theirsAfter = await verify(address, otherKey);
    assert.equal(theirsAfter.checks.catch_all_confidence, theirsBefore.checks.catch_all_confidence);
    assert.equal(theirsAfter.score, theirsBefore.score);
    assert.ok(!names(theirsAfter).includes('feedback_bounce_rate'));
    assert.equal(world.hosts['catch-all'].stats.connections, sessions, 'still the cached result');
  });
});
