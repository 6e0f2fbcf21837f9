/**
 * One HostSessionLimiter contract, run against the in-process limiter and against two Redis
 * limiters on two connections (two processes' worth); then what only Redis promises: leases of a
 * dead holder are reclaimed, live ones are renewed, waiting has a limit, and the fallback to
 * per-process limits. Finally two SmtpProbers sharing one cap against a real socket. The Redis
 * parts need REDIS_URL (skipped without it, except under CI).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { SystemClock } from '../../../../src/adapters/clock/system.ts';
import { closeRedis, createRedisClient } from '../../../../src/adapters/redis/redis-client.ts';
import { withFallback } from '../../../../src/adapters/redis/with-fallback.ts';
import { MemoryHostLimiter } from '../../../../src/adapters/smtp/host-limiter/memory.ts';
import {
  RedisHostLimiter,
  type RedisHostLimiterOptions,
} from '../../../../src/adapters/smtp/host-limiter/redis.ts';
import { HostBusyError, type HostSessionLimiter } from '../../../../src/adapters/smtp/ports.ts';
import { SmtpProber } from '../../../../src/adapters/smtp/smtp-prober.ts';
import { FALLBACKS } from '../../../../src/container/shared-state.ts';
import type { DnsAnswer, DnsResolver, ProbeRequest } from '../../../../src/verification/ports.ts';
import type { MxRecord } from '../../../../src/verification/report.ts';
import { requireRedis } from '../../../helpers/services.ts';
import { type TestRedis, testRedis } from '../../redis/redis-test-keys.ts';
import { startTinySmtp } from '../tiny-smtp.ts';

const redis = await requireRedis('Redis host limiter suite');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Two limiters that must share one cap (the same one in memory; two connections in Redis). */
type Pair = (permits: number) => [HostSessionLimiter, HostSessionLimiter];

interface Subject {
  name: string;
  pair: Pair;
  skip?: string | undefined;
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await sleep(ms);
  return settled;
}

function contract(subject: Subject): void {
  if (subject.skip !== undefined) {
    it(`HostSessionLimiter contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  const host = (): string => `192.0.2.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
  describe(`HostSessionLimiter contract: ${subject.name}`, () => {
    it('permits 2: at most 2 holders at any time across both limiters, and every waiter gets a turn', async () => {
      const [a, b] = subject.pair(2);
      const ip = host();
      let holding = 0;
      let maxHolding = 0;
      let done = 0;
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const release = await (i % 2 === 0 ? a : b).acquire(ip);
          holding += 1;
          maxHolding = Math.max(maxHolding, holding);
          await sleep(15 + (i % 3) * 10);
          holding -= 1;
          release();
          done += 1;
        }),
      );
      assert.equal(done, 12);
      assert.equal(maxHolding, 2);
    });

    it('release is idempotent: releasing twice frees one slot, not two', async () => {
      const [a, b] = subject.pair(1);
      const ip = host();
      const first = await a.acquire(ip);
      first();
      first();
      const second = await b.acquire(ip);
      const third = a.acquire(ip);
      assert.equal(await settlesWithin(third, 150), false, 'a second holder got in after a double release');
      second();
      const release = await third;
      release();
    });

    it('hosts are independent: a full host does not hold up another', async () => {
      const [a, b] = subject.pair(1);
      const [busy, free] = [host(), host()];
      const held = await a.acquire(busy);
      const other = b.acquire(free);
      assert.equal(await settlesWithin(other, 100), true);
      (await other)();
      held();
    });
  });
}

contract({
  name: 'memory',
  pair: (permits) => {
    const limiter = new MemoryHostLimiter(permits);
    return [limiter, limiter];
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
    prefix = env.prefix('mxhost');
  });
  after(() => env?.cleanup());
}

const redisLimiter = (connection: Redis, options: RedisHostLimiterOptions): RedisHostLimiter =>
  new RedisHostLimiter(connection, { keyPrefix: prefix, ...options });

contract({
  name: 'redis, two connections',
  pair: (permits) => [redisLimiter(client, { permits }), redisLimiter(other, { permits })],
  skip: redis.skipReason,
});

if (redis.skipReason !== undefined) {
  it('RedisHostLimiter beyond the contract', { skip: redis.skipReason }, () => {});
} else {
  describe('RedisHostLimiter beyond the contract', () => {
    it("a dead holder's lease is reclaimed once it expires", async () => {
      const doomed = await env!.connect();
      const ip = `dead-${randomUUID()}`;
      await redisLimiter(doomed, { permits: 1, leaseMs: 400 }).acquire(ip);
      doomed.disconnect(); // a killed process: no release, no renewal
      const started = performance.now();
      await assert.rejects(redisLimiter(client, { permits: 1, maxWaitMs: 100 }).acquire(ip), HostBusyError);
      const release = await redisLimiter(client, { permits: 1, maxWaitMs: 3_000 }).acquire(ip);
      const waited = performance.now() - started;
      assert.ok(waited >= 300 && waited < 2_000, `reclaimed after ${Math.round(waited)} ms`);
      release();
    });

    it('a live holder keeps its slot past the lease time (renewed)', async () => {
      const ip = `renew-${randomUUID()}`;
      const release = await redisLimiter(client, { permits: 1, leaseMs: 150 }).acquire(ip);
      await sleep(500);
      await assert.rejects(redisLimiter(other, { permits: 1, maxWaitMs: 100 }).acquire(ip), HostBusyError);
      release();
      (await redisLimiter(other, { permits: 1, maxWaitMs: 1_000 }).acquire(ip))();
    });

    it('leases live in one sorted set per host, scored by expiry; released ones are gone', async () => {
      const ip = `set-${randomUUID()}`;
      const release = await redisLimiter(client, { permits: 2, leaseMs: 10_000 }).acquire(ip);
      const [lease, score] = await client.zrange(prefix + ip, '0', '-1', 'WITHSCORES');
      const [seconds] = await client.time();
      assert.ok(lease !== undefined && Number(score) > Number(seconds) * 1000 + 9_000);
      release();
      await sleep(30);
      assert.equal(await client.zcard(prefix + ip), 0);
    });

    it('FallbackHostLimiter: Redis unreachable → per-process limits, one warning', async () => {
      const dead = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 100 });
      try {
        const warnings: string[] = [];
        const limiter = withFallback<HostSessionLimiter>(
          new RedisHostLimiter(dead, { permits: 1 }),
          new MemoryHostLimiter(1),
          { ...FALLBACKS.hostLimiter, warn: (message) => warnings.push(message) },
        );
        const held = await limiter.acquire('192.0.2.9');
        assert.equal(limiter.degraded, true);
        assert.equal(
          await settlesWithin(limiter.acquire('192.0.2.9'), 100),
          false,
          'memory cap of 1 not kept',
        );
        held();
        assert.equal(warnings.length, 1);
        assert.match(warnings[0] ?? '', /MX host session limit: Redis unavailable/);
      } finally {
        await closeRedis(dead);
      }
    });

    it('FallbackHostLimiter passes a busy host on instead of falling back', async () => {
      const ip = `busy-${randomUUID()}`;
      const warnings: string[] = [];
      const held = await redisLimiter(client, { permits: 1 }).acquire(ip);
      const limiter = withFallback<HostSessionLimiter>(
        redisLimiter(other, { permits: 1, maxWaitMs: 80 }),
        new MemoryHostLimiter(1),
        { ...FALLBACKS.hostLimiter, warn: (message) => warnings.push(message) },
      );
      await assert.rejects(limiter.acquire(ip), HostBusyError);
      assert.equal(limiter.degraded, false);
      assert.deepEqual(warnings, []);
      held();
    });
  });
}

/** Every host name resolves to 127.0.0.1. */
const loopbackDns: DnsResolver = {
  resolveMx: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }) as Promise<DnsAnswer<MxRecord[]>>,
  resolveA: () => Promise.resolve({ kind: 'ok', records: ['127.0.0.1'], ttlSeconds: 60 }),
  resolveAaaa: () => Promise.resolve({ kind: 'nodata', ttlSeconds: 60 }),
};

function proberSuite(
  label: string,
  pair: () => [HostSessionLimiter, HostSessionLimiter],
  skip?: string,
): void {
  if (skip !== undefined) {
    it(`two SmtpProbers sharing a host limit: ${label}`, { skip }, () => {});
    return;
  }
  it(`two SmtpProbers sharing a host limit of 1 never open 2 sessions at once: ${label}`, async () => {
    const host = await startTinySmtp(100);
    try {
      const probers = pair().map(
        (hostLimiter) =>
          new SmtpProber(loopbackDns, new SystemClock(), {
            port: host.port,
            identity: { helo: 'probe.test', from: 'verify@probe.test' },
            allowPrivate: true,
            connectTimeoutMs: 2_000,
            commandTimeoutMs: 2_000,
            probeTimeoutMs: 10_000,
            hostLimiter,
          }),
      );
      const request = (i: number): ProbeRequest => {
        const domain = `d${i}-${randomUUID()}.test`;
        return {
          address: `alice@${domain}`,
          localPart: 'alice',
          asciiDomain: domain,
          mxHosts: [{ exchange: `mx.${domain}`, priority: 10 }],
          internationalized: false,
        };
      };
      const checks = await Promise.all(
        Array.from({ length: 6 }, (_, i) => probers[i % 2]!.probe(request(i))),
      );
      assert.deepEqual(
        checks.map((check) => check.verdict),
        Array(6).fill('catch_all'),
      );
      assert.equal(host.sessions, 6);
      assert.equal(host.maxOpen, 1);
    } finally {
      await host.close();
    }
  });
}

proberSuite('memory', () => {
  const limiter = new MemoryHostLimiter(1);
  return [limiter, limiter];
});
proberSuite(
  'redis, two connections',
  () => [redisLimiter(client, { permits: 1 }), redisLimiter(other, { permits: 1 })],
  redis.skipReason,
);
