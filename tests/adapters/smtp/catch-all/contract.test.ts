/**
 * One CatchAllStore contract, run against the memory and the Redis stores; then SmtpProber with a
 * shared store: a second prober (another process) trusts the first one's catch-all verdict and
 * sends no random-address probe. The Redis parts need REDIS_URL (skipped without it, except CI).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { SystemClock } from '../../../../src/adapters/clock/system.ts';
import { closeRedis, createRedisClient } from '../../../../src/adapters/redis/redis-client.ts';
import { withFallback } from '../../../../src/adapters/redis/with-fallback.ts';
import { MemoryCatchAllStore } from '../../../../src/adapters/smtp/catch-all/memory.ts';
import { RedisCatchAllStore } from '../../../../src/adapters/smtp/catch-all/redis.ts';
import type { CatchAllStore } from '../../../../src/adapters/smtp/ports.ts';
import { SmtpProber } from '../../../../src/adapters/smtp/smtp-prober.ts';
import { FALLBACKS } from '../../../../src/container/shared-state.ts';
import type { Clock, DnsAnswer, DnsResolver } from '../../../../src/verification/ports.ts';
import type { MxRecord } from '../../../../src/verification/report.ts';
import { requireRedis } from '../../../helpers/services.ts';
import { type TestRedis, testRedis } from '../../redis/redis-test-keys.ts';
import { startTinySmtp } from '../tiny-smtp.ts';

const redis = await requireRedis('Redis catch-all cache suite');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

class FakeClock implements Clock {
  ms = 1_000;
  now(): number {
    return this.ms;
  }
}

interface Subject {
  name: string;
  store: () => CatchAllStore;
  wait: (ms: number) => Promise<void>;
  skip?: string | undefined;
}

function contract(subject: Subject): void {
  if (subject.skip !== undefined) {
    it(`CatchAllStore contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  const domain = (label: string): string => `${label}.${randomUUID()}.test`;
  describe(`CatchAllStore contract: ${subject.name}`, () => {
    it('misses an unknown domain, then returns true or false as stored', async () => {
      const store = subject.store();
      const [yes, no] = [domain('yes'), domain('no')];
      assert.equal(await store.get(yes), undefined);
      await store.set(yes, true, 60);
      await store.set(no, false, 60);
      assert.equal(await store.get(yes), true);
      assert.equal(await store.get(no), false);
    });

    it('a later verdict replaces the earlier one', async () => {
      const store = subject.store();
      const name = domain('flip');
      await store.set(name, true, 60);
      await store.set(name, false, 60);
      assert.equal(await store.get(name), false);
    });

    it('forgets a verdict after its TTL; a TTL of 0 stores nothing', async () => {
      const store = subject.store();
      const [short, none] = [domain('short'), domain('none')];
      await store.set(short, true, 0.2);
      await store.set(none, true, 0);
      assert.equal(await store.get(short), true);
      assert.equal(await store.get(none), undefined);
      await subject.wait(350);
      assert.equal(await store.get(short), undefined);
    });

    it('takes odd domains without throwing and keeps them apart', async () => {
      const store = subject.store();
      const id = randomUUID();
      const odd = [`a\uD800${id}`, `a\uD801${id}`, `sp ace*${id}`, `${'x'.repeat(5000)}${id}`, `ünï${id}`];
      for (const [i, name] of odd.entries()) await store.set(name, i % 2 === 0, 60);
      for (const [i, name] of odd.entries()) assert.equal(await store.get(name), i % 2 === 0);
    });
  });
}

const memoryClock = new FakeClock();
contract({
  name: 'memory',
  store: () => new MemoryCatchAllStore(memoryClock),
  wait: async (ms) => {
    memoryClock.ms += ms;
  },
});

let env: TestRedis | undefined;
let client: Redis;
let other: Redis;
let prefix: string;
if (redis.url !== null) {
  const url = redis.url;
  before(async () => {
    env = testRedis(url);
    client = await env.connect();
    other = await env.connect();
    prefix = env.prefix('catchall');
  });
  after(() => env?.cleanup());
}

contract({
  name: 'redis',
  store: () => new RedisCatchAllStore(client, prefix),
  wait: sleep,
  skip: redis.skipReason,
});

/** Every host name resolves to 127.0.0.1. */
const loopbackDns: DnsResolver = {
  resolveMx: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }) as Promise<DnsAnswer<MxRecord[]>>,
  resolveA: () => Promise.resolve({ kind: 'ok', records: ['127.0.0.1'], ttlSeconds: 60 }),
  resolveAaaa: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }),
};

function prober(port: number, store: CatchAllStore): SmtpProber {
  return new SmtpProber(loopbackDns, new SystemClock(), {
    port,
    identity: { helo: 'probe.test', from: 'verify@probe.test' },
    allowPrivate: true,
    connectTimeoutMs: 2_000,
    commandTimeoutMs: 2_000,
    probeTimeoutMs: 5_000,
    catchAllStore: store,
  });
}

function proberSuite(label: string, stores: () => [CatchAllStore, CatchAllStore], skip?: string): void {
  if (skip !== undefined) {
    it(`SmtpProber with a shared catch-all store: ${label}`, { skip }, () => {});
    return;
  }
  describe(`SmtpProber with a shared catch-all store: ${label}`, () => {
    it("a second prober uses the first one's verdict and sends no random-address probe", async () => {
      const host = await startTinySmtp();
      try {
        const [storeA, storeB] = stores();
        const domain = `catchall-${randomUUID()}.test`;
        const request = (local: string) => ({
          address: `${local}@${domain}`,
          localPart: local,
          asciiDomain: domain,
          mxHosts: [{ exchange: `mx.${domain}`, priority: 10 }],
          internationalized: false,
        });
        const first = await prober(host.port, storeA).probe(request('alice'));
        assert.equal(first.catchAll, true);
        assert.equal(host.rcpts.length, 2, 'random probe + alice');
        await sleep(30); // the write to the store is not awaited by the probe
        assert.equal(await storeB.get(domain), true);
        const second = await prober(host.port, storeB).probe(request('bob'));
        assert.equal(second.catchAll, true);
        assert.equal(second.verdict, first.verdict);
        assert.deepEqual(host.rcpts.slice(2), [`<bob@${domain}>`]);
      } finally {
        await host.close();
      }
    });
  });
}

proberSuite('memory', () => {
  const store = new MemoryCatchAllStore(new SystemClock());
  return [store, store];
});
proberSuite(
  'redis, two connections',
  () => [new RedisCatchAllStore(client, prefix), new RedisCatchAllStore(other, prefix)],
  redis.skipReason,
);

describe('FallbackCatchAllStore', () => {
  it('on a Redis with nothing listening: memory answers, one warning', async () => {
    const dead = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 100 });
    try {
      const warnings: string[] = [];
      const store = withFallback<CatchAllStore>(
        new RedisCatchAllStore(dead, 'mailvet-test:dead:'),
        new MemoryCatchAllStore(new FakeClock()),
        { ...FALLBACKS.catchAll, warn: (message) => warnings.push(message) },
      );
      await store.set('example.test', true, 60);
      assert.equal(await store.get('example.test'), true);
      assert.equal(store.degraded, true);
      assert.deepEqual(warnings.length, 1);
      assert.match(warnings[0] ?? '', /catch-all cache: Redis unavailable/);
    } finally {
      await closeRedis(dead);
    }
  });
});
