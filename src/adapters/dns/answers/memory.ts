/**
 * The second-level DNS answer cache (scale-out mode): answers one process learnt, shared with the
 * others so a domain is asked upstream once per TTL by the whole fleet, not once per process.
 * CachedDnsResolver stays the first level; this store is only consulted on its misses.
 */
import type { Clock, DnsAnswer } from '../../../verification/ports.ts';

/** The question an answer belongs to. */
export type DnsQuestion = 'mx' | 'a' | 'aaaa';

/** An answer worth sharing: failures (SERVFAIL, timeouts) are kept per process only. */
export type SharedDnsAnswer = Exclude<DnsAnswer<unknown>, { kind: 'error' }>;

/** Shared DNS answers. `get` gives the answer with `ttlSeconds` set to the time it has left. */
export interface DnsAnswerStore {
  get(question: DnsQuestion, name: string): Promise<SharedDnsAnswer | undefined>;
  /** Keeps `answer` for `ttlSeconds` (0 or less keeps nothing). */
  set(question: DnsQuestion, name: string, answer: SharedDnsAnswer, ttlSeconds: number): Promise<void>;
}

/** In-process DnsAnswerStore: for tests, and the stand-in while Redis is unreachable. */
export class MemoryDnsAnswerStore implements DnsAnswerStore {
  readonly #clock: Clock;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { answer: SharedDnsAnswer; expiresMs: number }>();

  constructor(clock: Clock, maxEntries = 100_000) {
    this.#clock = clock;
    this.#maxEntries = Math.max(1, maxEntries);
  }

  /** The stored answer, its TTL counting down; undefined once expired. */
  get(question: DnsQuestion, name: string): Promise<SharedDnsAnswer | undefined> {
    const key = `${question} ${name}`;
    const entry = this.#entries.get(key);
    if (entry === undefined) return Promise.resolve(undefined);
    const leftMs = entry.expiresMs - this.#clock.now();
    if (leftMs <= 0) {
      this.#entries.delete(key);
      return Promise.resolve(undefined);
    }
    return Promise.resolve({ ...entry.answer, ttlSeconds: Math.ceil(leftMs / 1000) });
  }

  /** Stores a copy; the oldest entry goes when full. */
  set(question: DnsQuestion, name: string, answer: SharedDnsAnswer, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0)) return Promise.resolve();
    const key = `${question} ${name}`;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, {
      answer: structuredClone(answer),
      expiresMs: this.#clock.now() + ttlSeconds * 1000,
    });
    return Promise.resolve();
  }
}
