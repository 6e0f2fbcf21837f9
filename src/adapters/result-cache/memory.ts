/**
 * In-process result cache (embedded mode, and the fallback when Redis is unreachable): a bounded
 * LRU with per-entry TTL.
 */
import { LRUCache } from 'lru-cache';
import type { ResultCache } from '../../usage/ports.ts';
import type { VerificationResult } from '../../verification/report.ts';

/** LRU of results keyed by normalized address. */
export class MemoryResultCache implements ResultCache {
  readonly #maxEntries: number;
  // Made at the first result stored: an LRU allocates its whole capacity at once (about 3 MB and
  // 15 ms for 100,000 entries), which a process that verifies nothing should not pay at start.
  #entries: LRUCache<string, VerificationResult> | undefined;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  get(address: string): Promise<VerificationResult | undefined> {
    return Promise.resolve(this.#entries?.get(address));
  }

  set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) {
      this.#entries ??= new LRUCache({ max: this.#maxEntries, ttlAutopurge: false });
      this.#entries.set(address, result, { ttl: ttlSeconds * 1000 });
    }
    return Promise.resolve();
  }

  delete(address: string): Promise<boolean> {
    return Promise.resolve(this.#entries?.delete(address) ?? false);
  }
}
