/**
 * Scale-out: two real `mailvet serve` processes on different ports share one PostgreSQL
 * schema and one Redis. The quota stays exact under concurrent requests spread over both, the
 * rate limit is one bucket for both, and a key revoked through one is refused by the other at once.
 * Needs DATABASE_URL and REDIS_URL; skips without them, except under CI.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { accountUsage } from '../adapters/store/store-fixtures.ts';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';
import {
  createKey,
  mailvet,
  type ServeProcess,
  schemaFactory,
  secretKey,
  spawnServe,
  verify,
} from './processes.ts';

const postgres = await requirePostgres('scale-out two-process suite');
const redis = await requireRedis('scale-out two-process suite');
const skipReason = postgres.skipReason ?? redis.skipReason;

interface ErrorBody {
  code: string;
  message: string;
  errors: unknown[];
  request_id: string;
}

if (postgres.url === null || redis.url === null) {
  test('two API processes share quota, rate limit and revocation', (t) => t.skip(skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  const redisUrl = redis.url;
  let world: DnsWorld;
  let env: Record<string, string>;
  let databaseUrl: string;
  let servers: ServeProcess[] = [];

  before(async () => {
    world = await startDnsWorld({ 'acme.test': { mx: [{ exchange: 'mx.acme.test', priority: 10 }] } });
    world.zones['mx.acme.test'] = { a: ['192.0.2.25'] };
    databaseUrl = (await schemas.create()).url;
    env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      MAILVET_SECRET_KEY: secretKey(),
      MAILVET_DNS_SERVERS: world.servers,
      MAILVET_SMTP_PROBE: 'false',
      // Every address is distinct, so the cache could not help; off, it cannot blur the counts.
      MAILVET_RESULT_TTL: '0',
      // These tests are about state the processes share through Redis. At the default 150 ms, a
      // command that waited on a machine running other suites beside this one (CI's) sent that
      // process to its per-process fallback — by design, and tested in faults.test.ts — and a
      // shared bucket of 10 then let 19 requests through. Redis on loopback answers in under a
      // millisecond: a second is "Redis answers" here, whatever else the machine does.
      MAILVET_REDIS_TIMEOUT_MS: '1000',
    };
    // Both start at once: migrations run under a lock, so racing starts must both succeed.
    servers = await Promise.all([spawnServe(env), spawnServe(env)]);
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await world?.close();
    await schemas.dropAll();
  });

  /** Request `i` goes to process `i % 2`. */
  const spread = (key: string, count: number, email: (i: number) => string) =>
    Promise.all(
      Array.from({ length: count }, (_, i) => verify(servers[i % servers.length]!.url, key, email(i))),
    );

  const tally = async (responses: Response[]) => {
    const counts = new Map<string, number>();
    const byProcess = new Map<string, number>();
    for (const response of responses) {
      const label =
        response.status === 200 ? '200' : `${response.status} ${((await response.json()) as ErrorBody).code}`;
      if (response.status === 200) await response.arrayBuffer();
      counts.set(label, (counts.get(label) ?? 0) + 1);
      const origin = new URL(response.url).origin;
      if (response.status === 200) byProcess.set(origin, (byProcess.get(origin) ?? 0) + 1);
    }
    return { counts: Object.fromEntries(counts), byProcess };
  };

  test('the two processes listen on different ports', () => {
    assert.equal(servers.length, 2);
    assert.notEqual(servers[0]!.url, servers[1]!.url);
  });

  test('400 concurrent verifications over both processes against a quota of 250: exactly 250 pass', async () => {
    const key = await createKey('quota', ['--monthly-quota', '250', '--rate-limit', '100000'], env);
    const responses = await spread(key.key, 400, (i) => `user${i}@acme.test`);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => r.headers.get('x-quota-remaining'));
    const refusedQuota = responses.filter((r) => r.status === 429).map((r) => r.headers.get('retry-after'));
    const { counts, byProcess } = await tally(responses);
    assert.deepEqual(counts, { '200': 250, '429 quota_exceeded': 150 });
    assert.equal(byProcess.size, 2, 'both processes granted some of the quota');
    assert.ok(remaining.includes('0'), 'the last unit granted left 0');
    assert.equal(new Set(remaining).size, 250, 'every grant saw a different remainder: no double spend');
    assert.ok(
      refusedQuota.every((value) => value !== null && Number(value) > 0),
      'Retry-After on refusals',
    );

    // The database agrees: 250 charged, and another request on either process is still refused.
    const store = await openStore({ databaseUrl, dataDir: '/nonexistent/mailvet-data' });
    try {
      const month = new Date().toISOString().slice(0, 7);
      assert.equal((await accountUsage(store, key, month)).verifications, 250);
    } finally {
      await store.close();
    }
    for (const server of servers) {
      const again = await verify(server.url, key.key, 'late@acme.test');
      assert.equal(again.status, 429);
      assert.equal(((await again.json()) as ErrorBody).code, 'quota_exceeded');
    }
  });

  test('a rate limit of 5/s (burst 10) is one bucket for both processes', async () => {
    const key = await createKey('rate', ['--rate-limit', '5'], env);
    const started = performance.now();
    const responses = await spread(key.key, 20, (i) => `rate${i}@acme.test`);
    const elapsedMs = performance.now() - started;
    const limited = responses.filter((r) => r.status === 429).map((r) => r.headers.get('retry-after'));
    const { counts } = await tally(responses);
    // Refill is 5 tokens a second: a slow run could earn a few more than the burst.
    const extra = Math.floor((elapsedMs / 1000) * 5);
    if (extra === 0) {
      assert.deepEqual(counts, { '200': 10, '429 rate_limited': 10 });
    } else {
      assert.ok((counts['200'] ?? 0) >= 10 && (counts['200'] ?? 0) <= 10 + extra, JSON.stringify(counts));
      assert.equal((counts['200'] ?? 0) + (counts['429 rate_limited'] ?? 0), 20, JSON.stringify(counts));
    }
    assert.ok(
      limited.every((value) => value !== null && Number(value) >= 1),
      'Retry-After on 429',
    );
  });

  test('a key revoked through the command line is refused by both processes on the next request', async () => {
    const key = await createKey('revoked', ['--rate-limit', '100000'], env);
    for (const server of servers)
      assert.equal((await verify(server.url, key.key, 'a@acme.test')).status, 200);

    await mailvet(['keys', 'revoke', key.id], env);
    for (const server of servers) {
      const refused = await verify(server.url, key.key, 'b@acme.test');
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as ErrorBody).code, 'unauthorized');
    }
  });

  test('a key revoked while the other process is using it is refused there at once', async () => {
    const key = await createKey('revoked-live', ['--rate-limit', '100000'], env);
    const [one, other] = servers as [ServeProcess, ServeProcess];
    assert.equal((await verify(other.url, key.key, 'c@acme.test')).status, 200);
    const store = await openStore({ databaseUrl, dataDir: '/nonexistent/mailvet-data' });
    try {
      assert.equal(await store.revokeApiKey(key.id), true);
    } finally {
      await store.close();
    }
    assert.equal((await verify(other.url, key.key, 'd@acme.test')).status, 401);
    assert.equal((await verify(one.url, key.key, 'e@acme.test')).status, 401);
  });

  test('both processes are still up and ready', async () => {
    for (const server of servers) {
      assert.ok(server.alive(), server.stderr());
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 200);
      // Both backends are reported: the store (PostgreSQL) and Redis, shared by the processes.
      assert.deepEqual(((await ready.json()) as { checks: unknown }).checks, {
        store: 'ok',
        dns: 'ok',
        redis: 'ok',
      });
    }
  });
}
