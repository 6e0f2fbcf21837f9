/**
 * One RateLimiter contract, run against the in-process and the Redis buckets, then what only the
 * Redis one promises: identical headers, one bucket shared exactly by several connections and
 * several processes, and idle buckets that expire. The Redis part needs REDIS_URL (skipped
 * without it, except under CI).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../src/adapters/rate-limit/redis.ts';
import { requireRedis } from '../../helpers/services.ts';
import { type TestRedis, testRedis } from '../redis/redis-test-keys.ts';
import { rateLimiterContract, takeInSequence } from './contract.ts';

const redis = await requireRedis('Redis rate limiter suite');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

rateLimiterContract({ name: 'memory', limiter: () => new MemoryRateLimiter(new SystemClock()) });

let env: TestRedis | undefined;
let client: Redis;
let otherClient: Redis;
let prefix: string;

if (redis.url !== null) {
  const url = redis.url;
  before(async () => {
    env = testRedis(url);
    client = await env.connect();
    otherClient = await env.connect();
    prefix = env.prefix('rl');
  });
  after(() => env?.cleanup());
}

rateLimiterContract({
  name: 'redis',
  limiter: () => new RedisRateLimiter(client, prefix),
  skip: redis.skipReason,
});

if (redis.skipReason !== undefined) {
  it('RedisRateLimiter beyond the contract', { skip: redis.skipReason }, () => {});
} else {
  describe('RedisRateLimiter beyond the contract', () => {
    it('gives the same header figures as the memory limiter for the same sequence', async () => {
      for (const rate of [5, 0.5, 2.5, 1]) {
        const count = Math.ceil(rate * 2) + 3;
        const memory = await takeInSequence(new MemoryRateLimiter(new SystemClock()), 'k', rate, count);
        const shared = await takeInSequence(new RedisRateLimiter(client, prefix), randomUUID(), rate, count);
        assert.deepEqual(shared, memory, `rate ${rate}`);
      }
    });

    it('keeps a bucket under `<prefix><keyId>` that expires once it would be full again', async () => {
      const limiter = new RedisRateLimiter(client, prefix);
      const id = randomUUID();
      for (let i = 0; i < 40; i++) await limiter.take(id, 20);
      // Empty: two seconds to refill at 20/s.
      const emptyTtl = await client.pttl(`${prefix}${id}`);
      assert.ok(emptyTtl > 1_800 && emptyTtl <= 2_001, `pttl ${emptyTtl}`);
      const quick = randomUUID();
      await limiter.take(quick, 100); // one token short: full again in 10 ms
      const quickTtl = await client.pttl(`${prefix}${quick}`);
      assert.ok(quickTtl > 0 && quickTtl <= 11, `pttl ${quickTtl}`);
      await sleep(60);
      assert.equal(await client.exists(`${prefix}${quick}`), 0);
    });

    it('shares one bucket exactly between two connections: 100 concurrent takes at 10/s → 20 allowed', async () => {
      const first = new RedisRateLimiter(client, prefix);
      const second = new RedisRateLimiter(otherClient, prefix);
      const id = randomUUID();
      const decisions = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? first : second).take(id, 10)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 20);
      const refused = decisions.find((d) => !d.allowed);
      assert.equal(refused?.retryAfterSeconds, 1);
    });

    it('shares one bucket exactly between two processes: 2 × 50 concurrent takes at 10/s → the burst of 20, and no more than refills meanwhile', async () => {
      const script = fileURLToPath(new URL('./take-tokens-process.ts', import.meta.url));
      const id = randomUUID();
      const children = [0, 1].map(() =>
        spawn(process.execPath, ['--import', 'tsx', script, redis.url ?? '', prefix, id, '10', '50'], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      try {
        const outputs = children.map((child) => {
          let text = '';
          child.stdout.setEncoding('utf8');
          child.stdout.on('data', (chunk: string) => {
            text += chunk;
          });
          return { child, text: () => text };
        });
        // Both connected before either takes a token, so refill between their starts is negligible.
        await Promise.all(outputs.map(async ({ text }) => waitFor(() => text().includes('ready\n'))));
        for (const child of children) child.stdin.write('go\n');
        const codes = await Promise.all(children.map(async (child) => (await once(child, 'exit'))[0]));
        assert.deepEqual(codes, [0, 0]);
        const taken = outputs.map(
          ({ text }) =>
            JSON.parse(text().split('\n')[1] ?? '') as { allowed: number; start: number; end: number },
        );
        // The bucket refills at 10/s while the takes go on: on a loaded machine the two processes'
        // takes can span more than 100 ms, and one token more is then the bucket's due, not a leak.
        const spanMs = Math.max(...taken.map((t) => t.end)) - Math.min(...taken.map((t) => t.start));
        const refilled = Math.floor((10 * spanMs) / 1000);
        assert.ok(refilled < 20, `the takes spanned ${spanMs} ms: too long to tell one bucket from two`);
        const allowed = taken[0]!.allowed + taken[1]!.allowed;
        assert.ok(allowed >= 20 && allowed <= 20 + refilled, `${allowed} allowed over ${spanMs} ms`);
      } finally {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      }
    });

    it('rejects a rate that is not a positive number (a configuration bug, not a Redis answer)', async () => {
      const limiter = new RedisRateLimiter(client, prefix);
      await assert.rejects(limiter.take(randomUUID(), 0), RangeError);
      await assert.rejects(limiter.take(randomUUID(), Number.NaN), RangeError);
    });
  });
}

/** Polls `ready` every 20 ms, for at most 20 s (tsx start-up on a loaded machine). */
async function waitFor(ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready(); waited += 20) {
    if (waited > 20_000) throw new Error('child process never became ready');
    await sleep(20);
  }
}
