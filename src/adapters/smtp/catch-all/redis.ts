/**
 * Catch-all verdicts in Redis (scale-out mode): `mailvet:catchall:<domain>` holds "1" or "0" and
 * expires with the verdict's TTL.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CatchAllStore } from '../ports.ts';

/** Default key prefix of catch-all verdicts. */
export const CATCH_ALL_KEY_PREFIX = 'mailvet:catchall:';

// Domains reaching the prober are ASCII; anything else (or anything huge) is hashed.
const PLAIN_DOMAIN = /^[\x21-\x7e]{1,255}$/;

/** A CatchAllStore in Redis; rejects when Redis does not answer (wrap it in the fallback). */
export class RedisCatchAllStore implements CatchAllStore {
  readonly #client: Redis;
  readonly #prefix: string;

  constructor(client: Redis, keyPrefix = CATCH_ALL_KEY_PREFIX) {
    this.#client = client;
    this.#prefix = keyPrefix;
  }

  /** The Redis key of a domain's verdict. */
  keyOf(domain: string): string {
    if (PLAIN_DOMAIN.test(domain)) return this.#prefix + domain;
    return `${this.#prefix}#${createHash('sha256').update(domain, 'utf16le').digest('hex')}`;
  }

  /** The verdict, or undefined when unknown (or not written by us). */
  async get(domain: string): Promise<boolean | undefined> {
    const stored = await this.#client.get(this.keyOf(domain));
    if (stored === '1') return true;
    if (stored === '0') return false;
    return undefined;
  }

  /** Stores the verdict for `ttlSeconds` (to the millisecond); 0 or less stores nothing. */
  async set(domain: string, catchAll: boolean, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0 && Number.isFinite(ttlSeconds))) return;
    await this.#client.set(
      this.keyOf(domain),
      catchAll ? '1' : '0',
      'PX',
      Math.max(1, Math.ceil(ttlSeconds * 1000)),
    );
  }
}
