/**
 * Attack: the probe as a connection flooder. The attacker's domains name 20 MX hosts with 20
 * addresses each, all silent. One /verify used to open 400 connections and one bulk request tens
 * of thousands. Now a probe tries at most 3 hosts × 2 addresses, and the connections an account
 * causes go through token buckets (per account, per domain, per destination address), and an
 * address that refused a connection is left alone for a while.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { fanOutZones, loopbackAddresses, type SilentHosts, startSilentHosts } from './silent-hosts.ts';

const ADDRESSES = loopbackAddresses(20);
const DOMAINS = Array.from({ length: 100 }, (_, i) => `fanout${i}.test`);
// Nothing listens there at first: connections are refused.
const [REFUSING] = loopbackAddresses(1, 6);
const REFUSING_DOMAINS = ['refused0.test', 'refused1.test'];
const ACCOUNT_RATE = 4;

let lists: ListServer;
let silent: SilentHosts;
let key: string;

before(async () => {
  lists = await startListServer(
    {
      MAILVET_SMTP_CONNECTIONS_PER_ACCOUNT: String(ACCOUNT_RATE),
      MAILVET_SMTP_CONNECT_TIMEOUT_MS: '300',
      MAILVET_SMTP_TIMEOUT_MS: '300',
      MAILVET_SMTP_PROBE_TIMEOUT_MS: '2000',
    },
    { zones: { ...fanOutZones(DOMAINS, 20, ADDRESSES), ...fanOutZones(REFUSING_DOMAINS, 20, [REFUSING!]) } },
  );
  silent = await startSilentHosts(ADDRESSES, lists.world.smtpPort);
  key = await lists.key();
});

after(async () => {
  await silent?.close();
  await lists?.close();
});

const post = (path: string, body: unknown, as = key) =>
  lists.api(as, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('one /verify at a 20 MX × 20 address domain opens at most 3 × 2 connections', async (t) => {
  const before = silent.connections;
  const response = await post('/verify', { email: 'victim@fanout0.test' });
  assert.equal(response.status, 200);
  const result = (await response.json()) as { status: string; checks: { smtp: string } };
  assert.equal(result.checks.smtp, 'unknown');
  assert.equal(result.status, 'PROBABLY_VALID');
  const opened = silent.connections - before;
  t.diagnostic(`${opened} connections`);
  assert.ok(opened >= 1 && opened <= 6, `${opened} connections`);
  // A host that takes the connection and never greets is not tried at its second address, and
  // an address shared by several hosts is tried once: at most one connection per host.
  assert.ok(opened <= 3, `${opened} connections`);
});

test("one bulk request at 100 such domains stays within the account's connection budget", async (t) => {
  const before = silent.connections;
  const started = Date.now();
  const response = await post('/verify/bulk', {
    emails: DOMAINS.slice(1).map((domain) => `victim@${domain}`),
  });
  const seconds = (Date.now() - started) / 1000;
  assert.equal(response.status, 200);
  const opened = silent.connections - before;
  t.diagnostic(`${opened} connections in ${seconds.toFixed(1)} s`);
  // The bucket holds twice the rate and refills at the rate while the request runs; before the
  // caps, this request opened hundreds of connections.
  const budget = 2 * ACCOUNT_RATE + Math.ceil(seconds * ACCOUNT_RATE);
  assert.ok(opened <= budget, `${opened} connections in ${seconds.toFixed(1)} s, budget ${budget}`);
  // Every probe ends within its 2 s timeout, so about 8 + 4 × 2.5: 3 × 2 per address would be 594.
  assert.ok(opened <= 24, `${opened} connections`);
});

test('an address that refused a connection is not tried again by the next probe', async () => {
  const other = await lists.key();
  const first = await post('/verify', { email: 'victim@refused0.test' }, other);
  assert.equal(first.status, 200);
  assert.equal(((await first.json()) as { reason: string }).reason, 'connect_failed');
  // Something listens there now; within the hold, the prober still leaves the address alone.
  const late = await startSilentHosts([REFUSING!], lists.world.smtpPort);
  try {
    const second = await post('/verify', { email: 'victim@refused1.test' }, other);
    assert.equal(second.status, 200);
    assert.equal(((await second.json()) as { reason: string }).reason, 'connect_failed');
    assert.equal(late.connections, 0);
  } finally {
    await late.close();
  }
});
