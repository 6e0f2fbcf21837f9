/**
 * The scale-out result cache: Redis, shared by all processes, and an in-process cache while Redis
 * is unreachable. A miss only costs a fresh verification, so falling back is
 * always safe.
 */
import type { ResultCache } from '../../usage/ports.ts';
import type { VerificationResult } from '../../verification/report.ts';
import { type FallbackOptions, FallbackSwitch, type Warn } from '../redis/fallback-switch.ts';

/** A result cache that never fails: `shared` (Redis) when it answers, else `local` (memory). */
export class FallbackResultCache implements ResultCache {
  readonly #shared: ResultCache;
  readonly #local: ResultCache;
  readonly #switch: FallbackSwitch;

  constructor(shared: ResultCache, local: ResultCache, warn: Warn, options: FallbackOptions = {}) {
    this.#shared = shared;
    this.#local = local;
    this.#switch = new FallbackSwitch('result cache', 'an in-process cache', warn, options);
  }

  /** True while results are cached per process. */
  get degraded(): boolean {
    return this.#switch.degraded;
  }

  /** The cached result from Redis, or from this process's cache when Redis fails. */
  get(address: string): Promise<VerificationResult | undefined> {
    return this.#switch.run(
      () => this.#shared.get(address),
      () => this.#local.get(address),
    );
  }

  /** Stores in Redis, or in this process's cache when Redis fails. */
  set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    return this.#switch.run(
      () => this.#shared.set(address, result, ttlSeconds),
      () => this.#local.set(address, result, ttlSeconds),
    );
  }
}
