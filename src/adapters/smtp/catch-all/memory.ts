/**
 * Whether a domain accepts any recipient (catch-all), remembered across processes in scale-out
 * mode so the random-address probe runs once per domain per TTL for the whole fleet. SmtpProber
 * keeps its in-process map as the first level and asks this store only on a miss.
 */
import type { Clock } from '../../../verification/ports.ts';

/** Catch-all verdicts per ASCII domain. */
export interface CatchAllStore {
  /** true/false when known and fresh, else undefined. */
  get(domain: string): Promise<boolean | undefined>;
  /** Remembers the verdict for `ttlSeconds` (0 or less remembers nothing). */
  set(domain: string, catchAll: boolean, ttlSeconds: number): Promise<void>;
}

/** In-process CatchAllStore: for tests, and the stand-in while Redis is unreachable. */
export class MemoryCatchAllStore implements CatchAllStore {
  readonly #clock: Clock;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { catchAll: boolean; expiresMs: number }>();

  constructor(clock: Clock, maxEntries = 100_000) {
    this.#clock = clock;
    this.#maxEntries = Math.max(1, maxEntries);
  }

  /** The verdict while fresh. */
  get(domain: string): Promise<boolean | undefined> {
    const entry = this.#entries.get(domain);
    if (entry === undefined) return Promise.resolve(undefined);
    if (entry.expiresMs <= this.#clock.now()) {
      this.#entries.delete(domain);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(entry.catchAll);
  }

  /** Stores the verdict; the oldest entry goes when full. */
  set(domain: string, catchAll: boolean, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0)) return Promise.resolve();
    this.#entries.delete(domain);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(domain, { catchAll, expiresMs: this.#clock.now() + ttlSeconds * 1000 });
    return Promise.resolve();
  }
}
