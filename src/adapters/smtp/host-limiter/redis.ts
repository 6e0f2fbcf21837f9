/**
 * Session slots per MX host address in Redis, shared by every process (scale-out mode): a lease
 * semaphore (`redis/lease-semaphore.ts`) keyed `mailvet:mxhost:<ip>`. Waiting for a slot is bounded
 * by `maxWaitMs`, then HostBusyError.
 */
import type { Redis } from 'ioredis';
import { RedisLeaseSemaphore } from '../../redis/lease-semaphore.ts';
import { HostBusyError, type HostSessionLimiter } from '../ports.ts';

/** Default key prefix; the leases at host `ip` live in the sorted set `mailvet:mxhost:ip`. */
export const HOST_LIMIT_KEY_PREFIX = 'mailvet:mxhost:';

/** Tuning of a {@link RedisHostLimiter}. */
export interface RedisHostLimiterOptions {
  /** Sessions per host address across all processes (default 2). */
  permits?: number;
  /** A lease not renewed for this long is reclaimed, ms (default 60,000); renewed every third. */
  leaseMs?: number;
  /** Give up (HostBusyError) after waiting this long for a slot, ms (default 30,000). */
  maxWaitMs?: number;
  keyPrefix?: string;
  random?: () => number;
}

/** Session slots per MX host address, capped across every process sharing the Redis. */
export class RedisHostLimiter implements HostSessionLimiter {
  readonly #leases: RedisLeaseSemaphore;
  readonly #permits: number;
  readonly #maxWaitMs: number;
  readonly #prefix: string;

  constructor(client: Redis, options: RedisHostLimiterOptions = {}) {
    this.#leases = new RedisLeaseSemaphore(client, { leaseMs: options.leaseMs, random: options.random });
    this.#permits = Math.max(1, options.permits ?? 2);
    this.#maxWaitMs = options.maxWaitMs ?? 30_000;
    this.#prefix = options.keyPrefix ?? HOST_LIMIT_KEY_PREFIX;
  }

  /** Waits for a slot at `hostIp`; rejects with HostBusyError after maxWaitMs, or when Redis fails. */
  async acquire(hostIp: string, waitMs = this.#maxWaitMs): Promise<() => void> {
    const release = await this.#leases.acquire(
      this.#prefix + hostIp,
      this.#permits,
      Math.min(waitMs, this.#maxWaitMs),
    );
    if (release === null) throw new HostBusyError(hostIp);
    return release;
  }
}
