/**
 * The RateLimiter contract (a token bucket per key, refilled at the rate per second,
 * holding at most twice that). Every implementation runs it, in real time: the figures asserted
 * are those of a sequence much shorter than one token's refill, and waits are only ever "long
 * enough", so a slow machine cannot fail it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { RateDecision, RateLimiter } from '../../../src/usage/ports.ts';

/** How a suite gets the implementation under test; `skip` names why it cannot run here. */
export interface RateLimiterSubject {
  name: string;
  limiter: () => RateLimiter;
  skip?: string | undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes `count` tokens one after the other (not concurrently: the order fixes the figures). */
export async function takeInSequence(
  limiter: RateLimiter,
  keyId: string,
  ratePerSecond: number,
  count: number,
): Promise<RateDecision[]> {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < count; i++) decisions.push(await limiter.take(keyId, ratePerSecond));
  return decisions;
}

/** Registers the contract suite for one implementation. */
export function rateLimiterContract(subject: RateLimiterSubject): void {
  // Fresh key names per run, so a shared Redis never hands this run another run's buckets.
  const key = (name: string): string => `${name}-${randomUUID()}`;

  if (subject.skip !== undefined) {
    // A skipped test, not a skipped suite: the runner's totals count tests only.
    it(`RateLimiter contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  describe(`RateLimiter contract: ${subject.name}`, () => {
    it('allows a burst of twice the rate, then refuses, with exact header figures', async () => {
      const decisions = await takeInSequence(subject.limiter(), key('burst'), 5, 11);
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [...new Array<boolean>(10).fill(true), false],
      );
      assert.deepEqual(
        decisions.map((d) => d.remaining),
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0],
      );
      assert.deepEqual(decisions[0], {
        allowed: true,
        limit: 5,
        remaining: 9,
        resetSeconds: 1,
        retryAfterSeconds: 0,
      });
      assert.deepEqual(decisions[10], {
        allowed: false,
        limit: 5,
        remaining: 0,
        resetSeconds: 2,
        retryAfterSeconds: 1,
      });
    });

    it('gives a slow rate a Retry-After of several seconds', async () => {
      // 0.5/s: a burst of one token, and two seconds until the next.
      const [first, second] = await takeInSequence(subject.limiter(), key('slow'), 0.5, 2);
      assert.deepEqual(first, {
        allowed: true,
        limit: 0.5,
        remaining: 0,
        resetSeconds: 2,
        retryAfterSeconds: 0,
      });
      assert.deepEqual(second, {
        allowed: false,
        limit: 0.5,
        remaining: 0,
        resetSeconds: 2,
        retryAfterSeconds: 2,
      });
    });

    it('refills over time: after waiting long enough a refused key is allowed again', async () => {
      const limiter = subject.limiter();
      const id = key('refill');
      // Takes until refused: at least the burst of 40 passes (more if tokens refill meanwhile, on a
      // slow machine), and a refusal comes.
      const burst = await takeInSequence(limiter, id, 20, 41);
      let refused = burst.at(-1)?.allowed === false;
      for (let i = 0; !refused && i < 100; i++) refused = !(await limiter.take(id, 20)).allowed;
      assert.ok(
        burst.slice(0, 40).every((d) => d.allowed),
        'the burst of 40 passes',
      );
      assert.ok(refused, 'an empty bucket refuses');
      await sleep(120); // 20/s: one token per 50 ms
      assert.equal((await limiter.take(id, 20)).allowed, true);
    });

    it('never refills above the burst', async () => {
      const limiter = subject.limiter();
      const id = key('cap');
      assert.equal((await limiter.take(id, 20)).remaining, 39);
      await sleep(200); // four tokens' worth, but the bucket lacks only one: full (40), not 43
      const next = await limiter.take(id, 20);
      assert.equal(next.remaining, 39);
      assert.equal(next.resetSeconds, 1);
    });

    it('keeps keys independent', async () => {
      const limiter = subject.limiter();
      const busy = key('busy');
      await takeInSequence(limiter, busy, 5, 10);
      assert.equal((await limiter.take(busy, 5)).allowed, false);
      const other = await limiter.take(key('other'), 5);
      assert.equal(other.allowed, true);
      assert.equal(other.remaining, 9);
    });
  });
}
