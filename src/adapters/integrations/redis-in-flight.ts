/**
 * The in-flight limit across processes (scale-out): Mailchimp counts an account's simultaneous
 * connections whichever of our processes opened them, so the slots are leases in Redis
 * (`redis/lease-semaphore.ts`), keyed `mailvet:inflight:<key>`. A process killed mid-request gives
 * its slot back when its lease runs out. A caller waits at most `maxWaitMs` for a slot.
 */
import type { Redis } from 'ioredis';
import type { InFlightLimiter } from '../../integrations/ports.ts';
import { RedisLeaseSemaphore } from '../redis/lease-semaphore.ts';

export const IN_FLIGHT_KEY_PREFIX = 'mailvet:inflight:';

export interface RedisInFlightOptions {
  /** A lease not renewed for this long is reclaimed, ms (default 60,000). */
  leaseMs?: number;
  /** The longest wait for a slot before the request fails (and is retried by its caller), ms (default 120,000). */
  maxWaitMs?: number;
  keyPrefix?: string;
}

/** No slot came free in time: the platform account is busy with other requests of ours. */
export class InFlightWaitExceeded extends Error {
  constructor(key: string, waitMs: number) {
    super(`no free request slot for ${key} within ${waitMs} ms`);
    this.name = 'InFlightWaitExceeded';
  }
}

export class RedisInFlightLimiter implements InFlightLimiter {
  readonly #leases: RedisLeaseSemaphore;
  readonly #maxWaitMs: number;
  readonly #prefix: string;

  constructor(client: Redis, options: RedisInFlightOptions = {}) {
    this.#leases = new RedisLeaseSemaphore(client, { leaseMs: options.leaseMs });
    this.#maxWaitMs = options.maxWaitMs ?? 120_000;
    this.#prefix = options.keyPrefix ?? IN_FLIGHT_KEY_PREFIX;
  }

  async acquire(key: string, limit: number): Promise<() => void> {
    const release = await this.#leases.acquire(this.#prefix + key, limit, this.#maxWaitMs);
    if (release === null) throw new InFlightWaitExceeded(key, this.#maxWaitMs);
    return release;
  }
}
