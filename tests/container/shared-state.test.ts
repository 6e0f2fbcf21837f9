/**
 * Wiring: with REDIS_URL set, two API instances (as two processes would be) share one rate-limit
 * bucket and one result cache through Redis; without it, each keeps its own in memory.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Services } from '../../src/container/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { requireRedis } from '../helpers/services.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';

let dns: DnsWorld;
let dataDir: string;

before(async () => {
  dns = await startDnsWorld({ 'acme.test': { mx: [{ exchange: 'mx.acme.test', priority: 10 }] } });
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-shared-'));
});
after(async () => {
  await dns.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function twoInstances(redisUrl: string | undefined) {
  const env = {
    MAILVET_DATA_DIR: dataDir,
    MAILVET_DNS_SERVERS: dns.servers,
    MAILVET_SMTP_PROBE: 'false',
    // What is tested is the wiring: on a loaded machine a Redis answer slower than the default 150 ms
    // would make a request fall back to its own instance's bucket (by design), and count twice.
    MAILVET_REDIS_TIMEOUT_MS: '2000',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
  const services: Services[] = [await createServices(loadConfig(env)), await createServices(loadConfig(env))];
  const apps = services.map((s) => buildApp(s));
  const store = services[0]!.store;
  const key = await issueApiKey(store, { name: 'shared', plan: 'free', monthlyQuota: 1000, rateLimit: 5 });
  const post = (i: number, email: string) =>
    apps[i]!.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: { email },
    });
  const close = async () => {
    for (const app of apps) await app.close();
    for (const s of services) await s.close();
  };
  return { post, close };
}

describe('shared state across API instances', () => {
  it('with REDIS_URL: one rate-limit bucket for the key across both instances', async (t) => {
    const redis = await requireRedis('shared rate limit');
    if (redis.url === null) return t.skip(redis.skipReason);
    const { post, close } = await twoInstances(redis.url);
    try {
      const started = performance.now();
      const requests = 80;
      const statuses = await Promise.all(
        Array.from({ length: requests }, (_, i) =>
          post(i % 2, `user${i}@acme.test`).then((r) => r.statusCode),
        ),
      );
      const elapsedSeconds = (performance.now() - started) / 1000;
      // Rate 5/s, burst 10: ten pass, whichever instance they reach, plus the tokens refilled while
      // the requests ran (a busy machine may take seconds to send them all). Two buckets, one per
      // instance, would let each instance pass its own 10 plus the same refill: twice the bound.
      // The bound is what tells one bucket from two, whatever the machine's speed, as long as each
      // instance gets more requests than one bucket could pass (checked, so a slow run cannot pass
      // without having tested anything).
      const passed = statuses.filter((s) => s === 200).length;
      const oneBucketBound = 10 + Math.floor(elapsedSeconds * 5);
      assert.ok(
        requests / 2 > oneBucketBound,
        `too slow to tell: ${requests} requests took ${elapsedSeconds} s`,
      );
      assert.ok(passed >= 10 && passed <= oneBucketBound, `${passed} passed in ${elapsedSeconds} s`);
      assert.equal(statuses.filter((s) => s === 429).length, requests - passed);
    } finally {
      await close();
    }
  });

  it('without REDIS_URL: each instance limits on its own', async () => {
    const { post, close } = await twoInstances(undefined);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => post(i % 2, `user${i}@acme.test`).then((r) => r.statusCode)),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 16);
    } finally {
      await close();
    }
  });
});
