/**
 * The scale-out rate limiter: Redis buckets shared by all processes, and per-process buckets while
 * Redis is unreachable. Limits are then per process — looser by the number of
 * processes — which is better than refusing every request or answering 5xx.
 */
import type { RateDecision, RateLimiter } from '../../usage/ports.ts';
import { type FallbackOptions, FallbackSwitch, type Warn } from '../redis/fallback-switch.ts';

/** A rate limiter that never fails: `shared` (Redis) when it answers, else `local` (memory). */
export class FallbackRateLimiter implements RateLimiter {
  readonly #shared: RateLimiter;
  readonly #local: RateLimiter;
  readonly #switch: FallbackSwitch;

  constructor(shared: RateLimiter, local: RateLimiter, warn: Warn, options: FallbackOptions = {}) {
    this.#shared = shared;
    this.#local = local;
    this.#switch = new FallbackSwitch('rate limiter', 'per-process limits', warn, options);
  }

  /** True while limits are per process. */
  get degraded(): boolean {
    return this.#switch.degraded;
  }

  /** Takes a token from the shared bucket, or from this process's own when Redis fails. */
  take(keyId: string, ratePerSecond: number): Promise<RateDecision> {
    return this.#switch.run(
      () => this.#shared.take(keyId, ratePerSecond),
      () => this.#local.take(keyId, ratePerSecond),
    );
  }
}
