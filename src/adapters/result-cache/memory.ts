/**
 * In-process result cache (embedded mode, and the fallback when Redis is unreachable): a bounded
 * LRU with per-entry TTL.
 */
import { LRUCache } from 'lru-cache';
import type { ResultCache } from '../../usage/ports.ts';
import type { VerificationResult } from '../../verification/report.ts';

/** LRU of results keyed by normalized address. */
export class MemoryResultCache implements ResultCache {
  readonly #entries: LRUCache<string, VerificationResult>;

  constructor(maxEntries = 100_000) {
    this.#entries = new LRUCache({ max: maxEntries, ttlAutopurge: false });
  }

  get(address: string): Promise<VerificationResult | undefined> {
    return Promise.resolve(this.#entries.get(address));
  }

  set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) this.#entries.set(address, result, { ttl: ttlSeconds * 1000 });
    return Promise.resolve();
  }
}
