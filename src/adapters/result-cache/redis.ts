/**
 * Verification results cached in Redis (scale-out mode), shared by every API process and worker.
 *
 * Keys are `mailvet:result:` + the SHA-256 (hex) of the normalized address, not the address
 * itself: an address may be up to 1024 characters of any Unicode, and hashing gives every key the
 * same small size, keeps personal data out of key listings (SCAN, slow log, keyspace
 * events) and leaves no glob characters for an operator's `--scan --pattern` to trip on. An
 * operator finds an address's entry with `printf '%s' ADDRESS | sha256sum`.
 */
import { createHash, hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ResultCache } from '../../usage/ports.ts';
import type { VerificationResult } from '../../verification/report.ts';

// With the u flag a well-formed surrogate pair is one code point, so this matches only lone halves.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Default key prefix of cached results. */
export const RESULT_KEY_PREFIX = 'mailvet:result:';

/** JSON results under hashed keys, expiring with the TTL they were stored with. */
export class RedisResultCache implements ResultCache {
  readonly #client: Redis;
  readonly #prefix: string;

  constructor(client: Redis, keyPrefix = RESULT_KEY_PREFIX) {
    this.#client = client;
    this.#prefix = keyPrefix;
  }

  /** The Redis key of an address's cached result. */
  keyOf(address: string): string {
    // UTF-8 turns every lone surrogate into U+FFFD, which would give two different (invalid)
    // addresses one key; such strings are hashed from their exact UTF-16 code units instead, under
    // a marker of their own so the two encodings can never meet.
    if (LONE_SURROGATE.test(address)) {
      return `${this.#prefix}u16:${createHash('sha256').update(address, 'utf16le').digest('hex')}`;
    }
    return this.#prefix + hash('sha256', address, 'hex');
  }

  /** The cached result, or undefined; rejects when Redis does not answer (see the fallback). */
  async get(address: string): Promise<VerificationResult | undefined> {
    const stored = await this.#client.get(this.keyOf(address));
    if (stored === null) return undefined;
    try {
      const result = JSON.parse(stored) as VerificationResult;
      // Written by a version whose results had no evidence yet: a miss, so the answer keeps its
      // documented shape (the API's serializer requires every field).
      return typeof result?.evidence === 'object' && result.evidence !== null ? result : undefined;
    } catch {
      // Not written by us (or truncated by hand): a miss, and the next set replaces it.
      return undefined;
    }
  }

  /** Stores the result for `ttlSeconds` (fractions kept to the millisecond); 0 or less stores nothing. */
  async set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0)) return;
    const value = JSON.stringify(result);
    // PX rather than EX so a fractional TTL means what it says, as in the memory cache.
    if (Number.isFinite(ttlSeconds)) {
      await this.#client.set(this.keyOf(address), value, 'PX', Math.max(1, Math.ceil(ttlSeconds * 1000)));
    } else {
      await this.#client.set(this.keyOf(address), value);
    }
  }

  /** Deletes the address's entry; true when there was one. */
  async delete(address: string): Promise<boolean> {
    return (await this.#client.del(this.keyOf(address))) > 0;
  }
}
