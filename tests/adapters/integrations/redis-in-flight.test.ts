/**
 * Mailchimp request slots shared through Redis (scale-out): two limiters on two connections (two
 * processes) never hold more than the limit of one key between them; a killed holder's slot comes
 * back when its lease runs out; a wait that runs out is InFlightWaitExceeded. Needs REDIS_URL
 * (skips without it, except under CI).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import {
  InFlightWaitExceeded,
  RedisInFlightLimiter,
} from '../../../src/adapters/integrations/redis-in-flight.ts';
import { requireRedis } from '../../helpers/services.ts';
import { type TestRedis, testRedis } from '../redis/redis-test-keys.ts';

const redis = await requireRedis('Redis in-flight limiter suite');

if (redis.url === null) {
  it('Redis in-flight limiter', { skip: redis.skipReason }, () => {});
} else {
  const url = redis.url;
  describe('RedisInFlightLimiter', () => {
    let env: TestRedis;
    let first: Redis;
    let second: Redis;
    let prefix: string;
    before(async () => {
      env = testRedis(url);
      first = await env.connect();
      second = await env.connect();
      prefix = env.prefix('inflight');
    });
    after(() => env?.cleanup());

    const limiter = (client: Redis, options: { leaseMs?: number; maxWaitMs?: number } = {}) =>
      new RedisInFlightLimiter(client, { keyPrefix: prefix, ...options });

    it('two processes together never hold more than the limit of one account', async () => {
      const key = `mailchimp:us21:${randomUUID()}`;
      const limiters = [limiter(first), limiter(second)];
      let holding = 0;
      let peak = 0;
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const release = await limiters[i % 2]!.acquire(key, 10);
          holding += 1;
          peak = Math.max(peak, holding);
          await new Promise((resolve) => setTimeout(resolve, 5 + (i % 4) * 5));
          holding -= 1;
          release();
        }),
      );
      assert.equal(peak, 10);
    });

    it("a killed holder's slot comes back once its lease runs out; a wait that runs out says so", async () => {
      const key = `mailchimp:us21:${randomUUID()}`;
      const doomed = await env.connect();
      await limiter(doomed, { leaseMs: 400 }).acquire(key, 1);
      doomed.disconnect(); // no release, no renewal
      await assert.rejects(limiter(first, { maxWaitMs: 100 }).acquire(key, 1), InFlightWaitExceeded);
      const started = performance.now();
      const release = await limiter(first, { maxWaitMs: 3_000 }).acquire(key, 1);
      assert.ok(performance.now() - started < 3_000);
      release();
    });
  });
}
