/**
 * Attack and accident: whose DNS failure is it? A machine whose resolver answered NXDOMAIN for
 * everything turned gmail.com into INVALID_DOMAIN with no warning (a list cleaner would delete good
 * contacts), and anyone running a zone that answers SERVFAIL got free verifications, since every
 * `dns_error` was refunded. Now control queries (names that must exist) tell the two apart: when
 * our resolver fails them the result is `dns_error`, never INVALID_DOMAIN, and free; /readyz says
 * the resolver is degraded and the log says why, once. When it answers them, a domain's own SERVFAIL
 * is `dns_error` and charged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import type { Zones } from '../mailworld/dns-server.ts';

let lists: ListServer;
let key: string;
const logLines: string[] = [];

before(async () => {
  lists = await startListServer(
    { MAILVET_SMTP_PROBE: 'false', MAILVET_DNS_CONTROL_TTL: '1' },
    {},
    { logger: { level: 'warn', stream: { write: (line: string) => void logLines.push(line) } } },
  );
  key = await lists.key({ quota: 1000 });
});
after(() => lists?.close());

async function verify(email: string) {
  const response = await lists.api(key, '/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { status: string; reason: string };
  return { ...body, remaining: Number(response.headers.get('x-quota-remaining')) };
}

async function readiness() {
  const response = await fetch(`${lists.url}/readyz`);
  return {
    status: response.status,
    checks: ((await response.json()) as { checks: Record<string, string> }).checks,
  };
}

const warnings = (pattern: RegExp) =>
  logLines
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 40 && pattern.test(entry.msg));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a resolver that answers NXDOMAIN for everything: dns_error, free, /readyz degraded, one log line', async () => {
  assert.equal((await readiness()).checks.dns, 'ok');
  const healthy = await verify('someone@nxdomain-for-real.test');
  assert.equal(healthy.status, 'INVALID_DOMAIN', 'a healthy resolver’s NXDOMAIN stands');

  const zones = lists.world.dns.zones;
  const saved: Zones = { ...zones };
  for (const name of Object.keys(zones)) delete zones[name];
  try {
    const remainingBefore = healthy.remaining;
    for (const email of ['jane@gmail.com', 'bob@outlook.com', `eve@${lists.world.domains['accept-known']}`]) {
      const result = await verify(email);
      assert.equal(result.reason, 'dns_error', email);
      assert.notEqual(result.status, 'INVALID_DOMAIN', email);
      assert.equal(result.remaining, remainingBefore, `${email}: our failure is not charged`);
    }
    const ready = await readiness();
    assert.equal(ready.status, 200, 'still ready: the rest of the service works');
    assert.equal(ready.checks.dns, 'degraded');
    assert.equal(warnings(/fails its control queries/).length, 1, 'said once, not per lookup');
  } finally {
    Object.assign(zones, saved);
  }

  // Healed: trusted again once the verdict is re-made (its lifetime here is 1 s). A domain looked
  // up while broken keeps its failure for the cache's short error lifetime: another one is asked.
  await sleep(2100);
  const again = await verify('jane@yahoo.com');
  assert.notEqual(again.reason, 'dns_error');
  assert.equal((await readiness()).checks.dns, 'ok');
  assert.equal(warnings(/answers its control queries again/).length, 1);
});

test('a zone that answers SERVFAIL while our resolver is healthy: dns_error, and charged', async () => {
  const first = await verify('a@servfail.test');
  const second = await verify('b@servfail.test');
  assert.equal(first.reason, 'dns_error');
  assert.equal(second.reason, 'dns_error');
  assert.equal(second.remaining, first.remaining - 1, 'a SERVFAIL from someone else’s zone is paid for');
});
