/**
 * Attack: one tenant stalls SMTP probing for everyone. Account A sends bulk requests at domains
 * whose MX hosts all point to one silent server; probes used to take a global session slot and
 * then wait, without limit, for a slot at that server, until no slot was left for anybody, and the
 * timeouts were cached for a day and served to every tenant. Now A gets only its share of probes,
 * every wait is bounded, and B's healthy address stays VALID and quick.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { VerificationResult } from '../../src/verification/report.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { fanOutZones, loopbackAddresses, type SilentHosts, startSilentHosts } from './silent-hosts.ts';

const TARPIT = loopbackAddresses(1, 5);
// More probes than the process has sessions (200 by default).
const ATTACK_DOMAINS = Array.from({ length: 300 }, (_, i) => `stall${i}.test`);
const PROBE_TIMEOUT_MS = 3000;

let lists: ListServer;
let silent: SilentHosts;

before(async () => {
  lists = await startListServer(
    {
      MAILVET_SMTP_PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
      MAILVET_SMTP_TIMEOUT_MS: '2500',
      MAILVET_RESULT_TTL: '86400',
      MAILVET_INCONCLUSIVE_RESULT_TTL: '1',
    },
    { zones: fanOutZones(ATTACK_DOMAINS, 1, TARPIT) },
  );
  silent = await startSilentHosts(TARPIT, lists.world.smtpPort);
});

after(async () => {
  await silent?.close();
  await lists?.close();
});

const verify = async (key: string, email: string) => {
  const response = await lists.api(key, '/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as VerificationResult;
};

test("another account's healthy address stays VALID and quick while a tarpit attack runs", async (t) => {
  const attacker = await lists.key();
  const victim = await lists.key();
  const attack = [0, 100, 200].map((from) =>
    lists.api(attacker, '/verify/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ emails: ATTACK_DOMAINS.slice(from, from + 100).map((d) => `x@${d}`) }),
    }),
  );
  // Let the attack take every slot it can before the victim asks.
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const local of ['alice', 'bob']) {
    const result = await verify(victim, `${local}@accept.test`);
    assert.equal(result.status, 'VALID', JSON.stringify(result));
    assert.equal(result.reason, 'mailbox_confirmed');
    // Well inside the probe timeout: the victim's probe waited for nobody.
    t.diagnostic(`${local}: ${result.duration_ms} ms`);
    assert.ok(result.duration_ms < PROBE_TIMEOUT_MS / 2, `${result.duration_ms} ms`);
  }
  const responses = await Promise.all(attack);
  for (const response of responses) assert.equal(response.status, 200);
  assert.ok(silent.connections > 0, 'the attack reached the tarpit');
  // After the attack, nobody is served a degraded answer from the cache.
  for (const key of [victim, attacker]) {
    const after = await verify(key, 'carol@accept.test');
    assert.equal(after.status, 'VALID', JSON.stringify(after));
  }
  const again = await verify(victim, 'alice@accept.test');
  assert.equal(again.reason, 'mailbox_confirmed');
});

test('an inconclusive result is cached only briefly, then probed again', async () => {
  const key = await lists.key();
  const first = await verify(key, 'y@stall299.test');
  assert.equal(first.reason, 'timeout');
  const seen = silent.connections;
  const cached = await verify(key, 'y@stall299.test');
  assert.equal(cached.reason, 'timeout');
  assert.equal(silent.connections, seen, 'answered from the cache within its lifetime');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await verify(key, 'y@stall299.test');
  assert.ok(silent.connections > seen, 'asked the server again once the short lifetime lapsed');
});
