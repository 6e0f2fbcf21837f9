/**
 * A caching DnsResolver in front of another one: TTL-bound positive answers, negative answers
 * (NXDOMAIN/NODATA, RFC 2308), briefly remembered failures so a dead server is not hammered, one
 * shared in-flight lookup per (type, name), and a bounded number of names.
 */
import type { Clock, DnsAnswer, DnsResolver } from '../../verification/ports.ts';
import type { MxRecord } from '../../verification/report.ts';
import type { DnsAnswerStore } from './ports.ts';

/** Cache lifetimes and size. Defaults in brackets. */
export interface DnsCacheOptions {
  /** Positive answers live their TTL clamped to [min, max] seconds [60, 3600]. */
  minTtlSeconds?: number;
  maxTtlSeconds?: number;
  /**
   * NXDOMAIN/NODATA live their TTL clamped to [min, max] seconds [30, 300]: short enough that a
   * domain registered a minute ago is seen soon.
   */
  minNegativeTtlSeconds?: number;
  maxNegativeTtlSeconds?: number;
  /** SERVFAIL, timeouts and refusals are remembered this long, seconds [15]. */
  errorTtlSeconds?: number;
  /** At most this many names are kept (each with up to three answers); the oldest go first [100,000]. */
  maxEntries?: number;
  /**
   * A second level shared with other processes (Redis in scale-out mode), asked only on an
   * in-process miss, before the inner resolver; it receives every answer but failures.
   */
  shared?: DnsAnswerStore;
  /** Told of every lookup: answered here (fresh, or joined to one in flight) or not (metrics). */
  onLookup?: (question: Question, hit: boolean) => void;
}

/**
 * One cached question. While the lookup is in flight `expiresAt` is +Infinity, so concurrent
 * callers share the pending promise; once settled, the same promise is handed out as is (a warm
 * hit allocates nothing).
 */
interface Slot<T> {
  answer: Promise<DnsAnswer<T>>;
  expiresAt: number;
}

/** The three questions asked about one name, kept together so a lookup needs no composite key. */
class NameEntry {
  mx: Slot<MxRecord[]> | undefined = undefined;
  a: Slot<string[]> | undefined = undefined;
  aaaa: Slot<string[]> | undefined = undefined;
}

type Question = 'mx' | 'a' | 'aaaa';

/** A DnsResolver that caches another one's answers (negative ones too) and shares in-flight lookups. */
export class CachedDnsResolver implements DnsResolver {
  readonly #inner: DnsResolver;
  readonly #clock: Clock;
  readonly #entries = new Map<string, NameEntry>();
  readonly #minTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #minNegativeTtlMs: number;
  readonly #maxNegativeTtlMs: number;
  readonly #errorTtlMs: number;
  readonly #maxEntries: number;
  readonly #shared: DnsAnswerStore | undefined;
  readonly #onLookup: ((question: Question, hit: boolean) => void) | undefined;

  constructor(inner: DnsResolver, clock: Clock, options: DnsCacheOptions = {}) {
    this.#inner = inner;
    this.#clock = clock;
    this.#minTtlMs = (options.minTtlSeconds ?? 60) * 1000;
    this.#maxTtlMs = (options.maxTtlSeconds ?? 3600) * 1000;
    this.#minNegativeTtlMs = (options.minNegativeTtlSeconds ?? 30) * 1000;
    this.#maxNegativeTtlMs = (options.maxNegativeTtlSeconds ?? 300) * 1000;
    this.#errorTtlMs = (options.errorTtlSeconds ?? 15) * 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 100_000);
    this.#shared = options.shared;
    this.#onLookup = options.onLookup;
  }

  /** Names currently cached. */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets every answer (in-flight lookups still reach their callers). */
  clear(): void {
    this.#entries.clear();
  }

  /** MX records of `domain`, from the cache when fresh. */
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    const slot = this.#entries.get(domain)?.mx;
    const hit = slot !== undefined && slot.expiresAt > this.#clock.now();
    this.#onLookup?.('mx', hit);
    if (hit) return slot.answer;
    return this.#refresh(domain, 'mx') as Promise<DnsAnswer<MxRecord[]>>;
  }

  /** IPv4 addresses of `host`, from the cache when fresh. */
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    const slot = this.#entries.get(host)?.a;
    const hit = slot !== undefined && slot.expiresAt > this.#clock.now();
    this.#onLookup?.('a', hit);
    if (hit) return slot.answer;
    return this.#refresh(host, 'a') as Promise<DnsAnswer<string[]>>;
  }

  /** IPv6 addresses of `host`, from the cache when fresh. */
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    const slot = this.#entries.get(host)?.aaaa;
    const hit = slot !== undefined && slot.expiresAt > this.#clock.now();
    this.#onLookup?.('aaaa', hit);
    if (hit) return slot.answer;
    return this.#refresh(host, 'aaaa') as Promise<DnsAnswer<string[]>>;
  }

  /** The slow path: ask the inner resolver and remember the pending answer. */
  #refresh(name: string, question: Question): Promise<DnsAnswer<unknown>> {
    let entry = this.#entries.get(name);
    if (entry === undefined) {
      if (this.#entries.size >= this.#maxEntries) this.#evictOldest();
      entry = new NameEntry();
    } else {
      // Re-insert so eviction order follows the latest lookup, not the first.
      this.#entries.delete(name);
    }
    this.#entries.set(name, entry);

    const slot: Slot<unknown> = { answer: this.#ask(name, question), expiresAt: Number.POSITIVE_INFINITY };
    entry[question] = slot as Slot<never>;
    const owner = entry;
    slot.answer.then(
      (answer) => {
        slot.expiresAt = this.#clock.now() + this.#lifetimeMs(answer);
      },
      () => {
        // A rejection is a bug in the inner resolver: let callers see it, but do not keep it.
        if (owner[question] === slot) owner[question] = undefined;
      },
    );
    return slot.answer;
  }

  #ask(name: string, question: Question): Promise<DnsAnswer<unknown>> {
    return this.#shared === undefined
      ? this.#askInner(name, question)
      : this.#askShared(this.#shared, name, question);
  }

  /** Shared store first, then upstream; a broken store counts as a miss and never fails a lookup. */
  async #askShared(shared: DnsAnswerStore, name: string, question: Question): Promise<DnsAnswer<unknown>> {
    const stored = await shared.get(question, name).catch(() => undefined);
    if (stored !== undefined) return stored;
    const answer = await this.#askInner(name, question);
    // Failures stay in-process (errorTtlSeconds): another process's resolver may well succeed.
    if (answer.kind !== 'error') {
      shared.set(question, name, answer, this.#lifetimeMs(answer) / 1000).catch(() => {});
    }
    return answer;
  }

  #askInner(name: string, question: Question): Promise<DnsAnswer<unknown>> {
    switch (question) {
      case 'mx':
        return this.#inner.resolveMx(name);
      case 'a':
        return this.#inner.resolveA(name);
      case 'aaaa':
        return this.#inner.resolveAaaa(name);
    }
  }

  #lifetimeMs(answer: DnsAnswer<unknown>): number {
    if (answer.kind === 'error') return this.#errorTtlMs;
    const ttlMs = answer.ttlSeconds * 1000;
    if (answer.kind === 'ok') return clamp(ttlMs, this.#minTtlMs, this.#maxTtlMs);
    return clamp(ttlMs, this.#minNegativeTtlMs, this.#maxNegativeTtlMs);
  }

  #evictOldest(): void {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}

/** `value` within [min, max]; a missing or nonsensical TTL counts as the minimum. */
function clamp(value: number, min: number, max: number): number {
  if (!(value >= min)) return min;
  return Math.min(value, max);
}
