/**
 * The second-level DNS answer cache (scale-out mode): answers one process learnt, shared with the
 * others so a domain is asked upstream once per TTL by the whole fleet, not once per process.
 * CachedDnsResolver stays the first level; this store is only consulted on its misses.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../../verification/ports.ts';
import type { DnsAnswerStore, DnsQuestion, SharedDnsAnswer } from '../ports.ts';

/** In-process DnsAnswerStore: for tests, and the stand-in while Redis is unreachable. */
export class MemoryDnsAnswerStore implements DnsAnswerStore {
  readonly #entries: LRUCache<string, SharedDnsAnswer>;

  /** `clock` times the TTLs (a test moves it by hand); the least recently used entry goes when full. */
  constructor(clock: Clock, maxEntries = 100_000) {
    this.#entries = new LRUCache({ max: Math.max(1, maxEntries), perf: clock, ttlResolution: 0 });
  }

  /** The stored answer, its TTL counting down; undefined once expired. */
  get(question: DnsQuestion, name: string): Promise<SharedDnsAnswer | undefined> {
    const key = `${question} ${name}`;
    const answer = this.#entries.get(key);
    if (answer === undefined) return Promise.resolve(undefined);
    const leftMs = this.#entries.getRemainingTTL(key);
    return Promise.resolve({ ...answer, ttlSeconds: Math.ceil(leftMs / 1000) });
  }

  /** Stores a copy for `ttlSeconds`. */
  set(question: DnsQuestion, name: string, answer: SharedDnsAnswer, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) {
      this.#entries.set(`${question} ${name}`, structuredClone(answer), { ttl: ttlSeconds * 1000 });
    }
    return Promise.resolve();
  }
}
