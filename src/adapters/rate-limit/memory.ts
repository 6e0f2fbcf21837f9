/**
 * In-process token buckets (embedded mode, and the fallback when Redis is unreachable).
 */

import type { RateDecision, RateLimiter } from '../../usage/ports.ts';
import type { Clock } from '../../verification/ports.ts';

interface Bucket {
  tokens: number;
  updatedMs: number;
  ratePerSecond: number;
  capacity: number;
}

/** Token bucket per name, refilled continuously; the burst is twice the rate unless given. */
export class MemoryRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #clock: Clock;
  readonly #maxKeys: number;

  constructor(clock: Clock, maxKeys = 100_000) {
    this.#clock = clock;
    this.#maxKeys = maxKeys;
  }

  take(bucketName: string, ratePerSecond: number, burst?: number): Promise<RateDecision> {
    return Promise.resolve(this.takeNow(bucketName, ratePerSecond, burst));
  }

  /** The synchronous core, shared with tests. */
  takeNow(keyId: string, ratePerSecond: number, burst = ratePerSecond * 2): RateDecision {
    const capacity = burst;
    const now = this.#clock.now();
    let bucket = this.#buckets.get(keyId);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#maxKeys) this.#evict(now);
      bucket = { tokens: capacity, updatedMs: now, ratePerSecond, capacity };
      this.#buckets.set(keyId, bucket);
    } else {
      const refill = ((now - bucket.updatedMs) / 1000) * ratePerSecond;
      bucket.tokens = Math.min(capacity, bucket.tokens + refill);
      bucket.updatedMs = now;
      bucket.ratePerSecond = ratePerSecond;
      bucket.capacity = capacity;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return decision(allowed, bucket.tokens, capacity, ratePerSecond);
  }

  // A bucket that has refilled completely carries no state: dropping it changes nothing. When none
  // is full, the fullest goes, so the key least likely to be limited is the one handed a fresh burst.
  #evict(now: number): void {
    let fullest: string | null = null;
    let fullestShare = -1;
    for (const [key, bucket] of this.#buckets) {
      const share =
        (bucket.tokens + ((now - bucket.updatedMs) / 1000) * bucket.ratePerSecond) / bucket.capacity;
      if (share >= 1) this.#buckets.delete(key);
      else if (share > fullestShare) {
        fullest = key;
        fullestShare = share;
      }
    }
    if (this.#buckets.size >= this.#maxKeys && fullest !== null) this.#buckets.delete(fullest);
  }
}

/** Builds the decision and its header figures from a bucket's state. */
export function decision(
  allowed: boolean,
  tokens: number,
  capacity: number,
  ratePerSecond: number,
): RateDecision {
  return {
    allowed,
    limit: ratePerSecond,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((capacity - tokens) / ratePerSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerSecond)),
  };
}
