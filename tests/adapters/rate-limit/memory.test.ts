import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';

class ManualClock {
  ms = 1_000_000;
  now(): number {
    return this.ms;
  }
}

describe('MemoryRateLimiter: token bucket, burst twice the rate', () => {
  it('allows a burst of 2× the rate, then refuses with Retry-After ≥ 1', () => {
    const limiter = new MemoryRateLimiter(new ManualClock());
    const decisions = Array.from({ length: 11 }, () => limiter.takeNow('key', 5));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [...new Array(10).fill(true), false],
    );
    assert.deepEqual(
      decisions.slice(0, 10).map((d) => d.remaining),
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    );
    const refused = decisions[10]!;
    assert.equal(refused.limit, 5);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(refused.resetSeconds, 2);
  });

  it('refills at the rate per second, never above the burst', () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i++) limiter.takeNow('key', 5);
    assert.equal(limiter.takeNow('key', 5).allowed, false);
    clock.ms += 200; // one token at 5/s
    assert.equal(limiter.takeNow('key', 5).allowed, true);
    assert.equal(limiter.takeNow('key', 5).allowed, false);
    clock.ms += 60_000;
    assert.equal(limiter.takeNow('key', 5).remaining, 9);
  });

  it('keeps keys apart', () => {
    const limiter = new MemoryRateLimiter(new ManualClock());
    for (let i = 0; i < 10; i++) limiter.takeNow('a', 5);
    assert.equal(limiter.takeNow('a', 5).allowed, false);
    assert.equal(limiter.takeNow('b', 5).allowed, true);
  });

  it('stays bounded in memory, dropping full buckets first', () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock, 3);
    limiter.takeNow('busy', 1);
    limiter.takeNow('busy', 1);
    clock.ms += 10;
    for (const key of ['k1', 'k2', 'k3', 'k4']) limiter.takeNow(key, 1000);
    // "busy" is still empty: it was kept or evicted last, never handed a fresh burst early.
    assert.equal(limiter.takeNow('busy', 1).allowed, false);
  });
});
