/**
 * Whether a domain accepts any recipient (catch-all), remembered across processes in scale-out
 * mode so the random-address probe runs once per domain per TTL for the whole fleet. SmtpProber
 * keeps its in-process map as the first level and asks this store only on a miss.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../../verification/ports.ts';
import type { CatchAllStore } from '../ports.ts';

/** In-process CatchAllStore: for tests, and the stand-in while Redis is unreachable. */
export class MemoryCatchAllStore implements CatchAllStore {
  readonly #entries: LRUCache<string, boolean>;

  /** `clock` times the TTLs (a test moves it by hand); the least recently used entry goes when full. */
  constructor(clock: Clock, maxEntries = 100_000) {
    this.#entries = new LRUCache({ max: Math.max(1, maxEntries), perf: clock, ttlResolution: 0 });
  }

  /** The verdict while fresh. */
  get(domain: string): Promise<boolean | undefined> {
    return Promise.resolve(this.#entries.get(domain));
  }

  /** Stores the verdict for `ttlSeconds`. */
  set(domain: string, catchAll: boolean, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) this.#entries.set(domain, catchAll, { ttl: ttlSeconds * 1000 });
    return Promise.resolve();
  }
}
