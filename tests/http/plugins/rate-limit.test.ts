/**
 * The per-key rate limit: a token bucket refilled at the plan's rate, holding twice
 * that; the 429 `rate_limited` with Retry-After; the RateLimit-* headers counting down.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import type { RateLimiter } from '../../../src/usage/ports.ts';
import { ManualClock, testApp } from '../../helpers/app.ts';
import { assertAccountingHeaders, assertError, post, VERIFY } from '../expect.ts';

// An invalid address is verified without DNS: these requests cost nothing but the bucket.
const BODY = { email: 'not an address' };

test('rate 5/s: 10 requests pass (the burst), the 11th is 429 rate_limited; headers count down', async () => {
  const clock = new ManualClock();
  const t = await testApp({ rate: 5, rateClock: clock });
  try {
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await post(t.app, VERIFY, BODY, t.auth());
      assert.equal(response.statusCode, 200, `request ${i + 1}`);
      const headers = assertAccountingHeaders(response);
      assert.equal(headers.rateLimit, 5);
      remaining.push(headers.rateRemaining);
    }
    assert.deepEqual(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await post(t.app, VERIFY, BODY, t.auth());
    assertError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '1');
    const headers = assertAccountingHeaders(refused);
    assert.equal(headers.rateRemaining, 0);
    assert.equal(headers.rateReset, 2, 'the empty bucket of 10 refills at 5/s in 2 s');
    assert.equal(headers.quotaRemaining, 1000 - 10, 'the refused request charged nothing');

    // 200 ms later one token is back.
    clock.advance(200);
    assert.equal((await post(t.app, VERIFY, BODY, t.auth())).statusCode, 200);
    assertError(await post(t.app, VERIFY, BODY, t.auth()), 429, 'rate_limited');
  } finally {
    await t.close();
  }
});

test('11 quick concurrent requests on the real clock: exactly one refused, Retry-After ≥ 1', async () => {
  const t = await testApp({ rate: 5 });
  try {
    const responses = await Promise.all(
      Array.from({ length: 11 }, () => post(t.app, VERIFY, BODY, t.auth())),
    );
    const refused = responses.filter((response) => response.statusCode === 429);
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 10);
    assert.equal(refused.length, 1);
    assertError(refused[0]!, 429, 'rate_limited');
    assert.ok(Number(refused[0]!.headers['retry-after']) >= 1);
  } finally {
    await t.close();
  }
});

test('buckets are per key, and the plan gives the rate when the key does not', async () => {
  const clock = new ManualClock();
  const t = await testApp({ rate: 1, rateClock: clock });
  try {
    for (let i = 0; i < 2; i++) assert.equal((await post(t.app, VERIFY, BODY, t.auth())).statusCode, 200);
    assertError(await post(t.app, VERIFY, BODY, t.auth()), 429, 'rate_limited');
    const starter = await t.addKey({ plan: 'starter' });
    const response = await post(t.app, VERIFY, BODY, t.auth(starter.key));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['ratelimit-limit'], '20');
    assert.equal(response.headers['ratelimit-remaining'], '39');
    assert.equal(response.headers['x-quota-limit'], '25000');
  } finally {
    await t.close();
  }
});

test('a limiter that answers only asynchronously (as Redis does) counts and refuses the same', async () => {
  const clock = new ManualClock();
  const memory = new MemoryRateLimiter(clock);
  // No takeNow: the hook takes the promise path a shared limiter takes.
  const asyncOnly: RateLimiter = { take: (bucket, rate, burst) => memory.take(bucket, rate, burst) };
  const t = await testApp({ rate: 5, rateLimiter: asyncOnly });
  try {
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await post(t.app, VERIFY, BODY, t.auth());
      assert.equal(response.statusCode, 200, `request ${i + 1}`);
      remaining.push(assertAccountingHeaders(response).rateRemaining);
    }
    assert.deepEqual(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = await post(t.app, VERIFY, BODY, t.auth());
    assertError(refused, 429, 'rate_limited');
    assert.equal(assertAccountingHeaders(refused).quotaRemaining, 1000 - 10);

    // A key with a lower rate of its own, in an account with tokens to spare: its bucket decides.
    const other = await testApp({ rate: 100, rateLimiter: asyncOnly });
    try {
      const slow = await other.addKey({ accountId: other.keyRecord.accountId, rate: 1 });
      assert.equal((await post(other.app, VERIFY, BODY, other.auth(slow.key))).statusCode, 200);
      assert.equal((await post(other.app, VERIFY, BODY, other.auth(slow.key))).statusCode, 200);
      const third = await post(other.app, VERIFY, BODY, other.auth(slow.key));
      assertError(third, 429, 'rate_limited');
      assert.equal(third.headers['ratelimit-limit'], '1', "the key's own, tighter bucket is shown");
      assert.equal((await post(other.app, VERIFY, BODY, other.auth())).statusCode, 200);
    } finally {
      await other.close();
    }
  } finally {
    await t.close();
  }
});
