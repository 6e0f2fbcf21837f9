/**
 * One DnsAnswerStore contract, run against the memory and the Redis stores; then CachedDnsResolver
 * with a shared second level (what one resolver learns, another does not ask upstream; failures
 * stay local; a broken store never fails a lookup); then the Redis fallback. The Redis parts need
 * REDIS_URL (skipped without it, except under CI).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { MemoryDnsAnswerStore } from '../../../../src/adapters/dns/answers/memory.ts';
import { RedisDnsAnswerStore } from '../../../../src/adapters/dns/answers/redis.ts';
import { CachedDnsResolver } from '../../../../src/adapters/dns/cached-resolver.ts';
import type { DnsAnswerStore, SharedDnsAnswer } from '../../../../src/adapters/dns/ports.ts';
import { closeRedis, createRedisClient } from '../../../../src/adapters/redis/redis-client.ts';
import { withFallback } from '../../../../src/adapters/redis/with-fallback.ts';
import { FALLBACKS } from '../../../../src/container/shared-state.ts';
import type { Clock, DnsAnswer, DnsResolver } from '../../../../src/verification/ports.ts';
import type { MxRecord } from '../../../../src/verification/report.ts';
import { requireRedis } from '../../../helpers/services.ts';
import { type TestRedis, testRedis } from '../../redis/redis-test-keys.ts';

const redis = await requireRedis('Redis DNS cache suite');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

class FakeClock implements Clock {
  ms = 1_000;
  now(): number {
    return this.ms;
  }
}

const MX: SharedDnsAnswer = {
  kind: 'ok',
  records: [
    { exchange: 'mx1.example.test', priority: 10 },
    { exchange: 'mx2.example.test', priority: 20 },
  ],
  ttlSeconds: 600,
};

interface Subject {
  name: string;
  store: () => DnsAnswerStore;
  /** Lets `ms` pass for the store (a fake clock, or real time for Redis). */
  wait: (ms: number) => Promise<void>;
  skip?: string | undefined;
}

function contract(subject: Subject): void {
  if (subject.skip !== undefined) {
    it(`DnsAnswerStore contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  const name = (label: string): string => `${label}.${randomUUID()}.example.test`;
  describe(`DnsAnswerStore contract: ${subject.name}`, () => {
    it('misses, then returns the stored answer with the TTL it has left', async () => {
      const store = subject.store();
      const domain = name('mx');
      assert.equal(await store.get('mx', domain), undefined);
      await store.set('mx', domain, MX, 100);
      const back = await store.get('mx', domain);
      assert.equal(back?.kind, 'ok');
      assert.deepEqual(back?.kind === 'ok' ? back.records : null, (MX as { records: MxRecord[] }).records);
      assert.ok(
        back !== undefined && back.ttlSeconds > 0 && back.ttlSeconds <= 100,
        `ttl ${back?.ttlSeconds}`,
      );
    });

    it('keeps negative answers, and each question apart', async () => {
      const store = subject.store();
      const domain = name('neg');
      await store.set('a', domain, { kind: 'nxdomain', ttlSeconds: 30 }, 30);
      await store.set('aaaa', domain, { kind: 'nodata', ttlSeconds: 30 }, 30);
      assert.equal((await store.get('a', domain))?.kind, 'nxdomain');
      assert.equal((await store.get('aaaa', domain))?.kind, 'nodata');
      assert.equal(await store.get('mx', domain), undefined);
    });

    it('forgets an answer once its TTL has run out; a TTL of 0 stores nothing', async () => {
      const store = subject.store();
      const [short, none] = [name('short'), name('none')];
      await store.set('a', short, { kind: 'ok', records: ['192.0.2.1'], ttlSeconds: 1 }, 0.2);
      await store.set('a', none, { kind: 'ok', records: ['192.0.2.2'], ttlSeconds: 1 }, 0);
      assert.equal((await store.get('a', short))?.kind, 'ok');
      assert.equal(await store.get('a', none), undefined);
      await subject.wait(350);
      assert.equal(await store.get('a', short), undefined);
    });

    it('takes odd names without throwing and keeps them apart', async () => {
      const store = subject.store();
      const id = randomUUID();
      const odd = [`a\uD800${id}`, `a\uD801${id}`, `sp ace*${id}`, `${'x'.repeat(2000)}${id}`, `ünï${id}`];
      for (const [i, domain] of odd.entries()) {
        await store.set('a', domain, { kind: 'ok', records: [`192.0.2.${i}`], ttlSeconds: 60 }, 60);
      }
      for (const [i, domain] of odd.entries()) {
        const back = await store.get('a', domain);
        assert.deepEqual(back?.kind === 'ok' ? back.records : null, [`192.0.2.${i}`]);
      }
    });
  });
}

const memoryClock = new FakeClock();
contract({
  name: 'memory',
  store: () => new MemoryDnsAnswerStore(memoryClock),
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
    prefix = env.prefix('dns');
  });
  after(() => env?.cleanup());
}

contract({
  name: 'redis',
  store: () => new RedisDnsAnswerStore(client, prefix),
  wait: sleep,
  skip: redis.skipReason,
});

/** An upstream resolver that counts its questions and answers from a table. */
class CountingResolver implements DnsResolver {
  asked = 0;
  constructor(readonly answer: (name: string) => DnsAnswer<never>) {}
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    this.asked += 1;
    return Promise.resolve(this.answer(domain));
  }
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    this.asked += 1;
    return Promise.resolve(this.answer(host));
  }
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    this.asked += 1;
    return Promise.resolve(this.answer(host));
  }
}

const upstream = (domain: string): DnsAnswer<never> =>
  domain.startsWith('fail')
    ? { kind: 'error', failure: 'servfail', retry: true }
    : ({ kind: 'ok', records: [{ exchange: `mx.${domain}`, priority: 5 }], ttlSeconds: 600 } as never);

function sharedLevelSuite(
  label: string,
  stores: () => [DnsAnswerStore, DnsAnswerStore],
  skip?: string,
): void {
  if (skip !== undefined) {
    it(`CachedDnsResolver with a shared level: ${label}`, { skip }, () => {});
    return;
  }
  describe(`CachedDnsResolver with a shared level: ${label}`, () => {
    it('an answer one resolver fetched upstream is not fetched again by another', async () => {
      const [storeA, storeB] = stores();
      const [upA, upB] = [new CountingResolver(upstream), new CountingResolver(upstream)];
      const a = new CachedDnsResolver(upA, new FakeClock(), { shared: storeA });
      const b = new CachedDnsResolver(upB, new FakeClock(), { shared: storeB });
      const domain = `shared.${randomUUID()}.test`;
      const first = await a.resolveMx(domain);
      await sleep(20); // the write-back is not awaited by the lookup
      const second = await b.resolveMx(domain);
      assert.equal(upA.asked, 1);
      assert.equal(upB.asked, 0);
      assert.equal(second.kind, 'ok');
      assert.deepEqual(second.kind === 'ok' && second.records, first.kind === 'ok' && first.records);
      // And b's own in-process level now answers without the store.
      assert.equal(await b.resolveMx(domain), await b.resolveMx(domain));
    });

    it('failures are not shared: the other resolver asks upstream itself', async () => {
      const [storeA, storeB] = stores();
      const [upA, upB] = [new CountingResolver(upstream), new CountingResolver(upstream)];
      const a = new CachedDnsResolver(upA, new FakeClock(), { shared: storeA });
      const b = new CachedDnsResolver(upB, new FakeClock(), { shared: storeB });
      const domain = `fail.${randomUUID()}.test`;
      assert.equal((await a.resolveMx(domain)).kind, 'error');
      await sleep(20);
      assert.equal((await b.resolveMx(domain)).kind, 'error');
      assert.equal(upB.asked, 1);
      assert.equal(await storeA.get('mx', domain), undefined);
    });
  });
}

sharedLevelSuite('memory', () => {
  const store = new MemoryDnsAnswerStore(new FakeClock());
  return [store, store];
});
sharedLevelSuite(
  'redis, two connections',
  () => [new RedisDnsAnswerStore(client, prefix), new RedisDnsAnswerStore(other, prefix)],
  redis.skipReason,
);

describe('a broken shared level never fails a lookup', () => {
  it('a rejecting store counts as a miss, and upstream answers', async () => {
    const broken: DnsAnswerStore = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const up = new CountingResolver(upstream);
    const resolver = new CachedDnsResolver(up, new FakeClock(), { shared: broken });
    assert.equal((await resolver.resolveMx('example.test')).kind, 'ok');
    assert.equal(up.asked, 1);
  });

  it('FallbackDnsAnswerStore on a Redis with nothing listening: memory answers, one warning', async () => {
    const dead = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 100 });
    try {
      const warnings: string[] = [];
      const store = withFallback<DnsAnswerStore>(
        new RedisDnsAnswerStore(dead, 'mailvet-test:dead:'),
        new MemoryDnsAnswerStore(new FakeClock()),
        { ...FALLBACKS.dnsAnswers, warn: (message) => warnings.push(message) },
      );
      await store.set('mx', 'example.test', MX, 60);
      assert.equal((await store.get('mx', 'example.test'))?.kind, 'ok');
      assert.equal(store.degraded, true);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /DNS cache: Redis unavailable/);
    } finally {
      await closeRedis(dead);
    }
  });
});
