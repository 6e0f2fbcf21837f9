/**
 * In-process token buckets (embedded mode, and the fallback when Redis is unreachable).
 */
import type { Clock } from '../../verification/ports.ts';
import type { RateDecision, RateLimiter } from '../../service/ports.ts';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Token bucket per key, refilled continuously; burst is twice the rate (DESIGN §1). */
export class MemoryRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #clock: Clock;
  readonly #maxKeys: number;

  constructor(clock: Clock, maxKeys = 100_000) {
    this.#clock = clock;
    this.#maxKeys = maxKeys;
  }

  take(keyId: string, ratePerSecond: number): Promise<RateDecision> {
    return Promise.resolve(this.takeNow(keyId, ratePerSecond));
  }

  /** The synchronous core, shared with tests. */
  takeNow(keyId: string, ratePerSecond: number): RateDecision {
    const capacity = ratePerSecond * 2;
    const now = this.#clock.now();
    let bucket = this.#buckets.get(keyId);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#maxKeys) this.#evictFull(now, ratePerSecond);
      bucket = { tokens: capacity, updatedMs: now };
      this.#buckets.set(keyId, bucket);
    } else {
      const refill = ((now - bucket.updatedMs) / 1000) * ratePerSecond;
      bucket.tokens = Math.min(capacity, bucket.tokens + refill);
      bucket.updatedMs = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return decision(allowed, bucket.tokens, capacity, ratePerSecond);
  }

  // Buckets that have refilled completely carry no state worth keeping.
  #evictFull(now: number, ratePerSecond: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.updatedMs) / 1000) * ratePerSecond >= ratePerSecond * 2) {
        this.#buckets.delete(key);
      }
    }
    if (this.#buckets.size >= this.#maxKeys) {
      const oldest = this.#buckets.keys().next();
      if (!oldest.done) this.#buckets.delete(oldest.value);
    }
  }
}

/** Builds the decision and its header figures from a bucket's state. */
export function decision(allowed: boolean, tokens: number, capacity: number, ratePerSecond: number): RateDecision {
  return {
    allowed,
    limit: ratePerSecond,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((capacity - tokens) / ratePerSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerSecond)),
  };
}
