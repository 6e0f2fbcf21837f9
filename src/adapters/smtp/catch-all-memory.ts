/**
 * The prober's memory of which domains accept any recipient: a bounded in-process map (least
 * recently used dropped first, since every domain anyone asks about would otherwise stay for
 * good) in front of the catch-all store shared with other processes.
 */
import { LRUCache } from 'lru-cache';
import type { RcptVerdict } from '../../verification/checks/smtp/reply.ts';
import type { Clock } from '../../verification/ports.ts';
import type { CatchAllStore } from './ports.ts';

export interface CatchAllMemoryOptions {
  ttlSeconds: number;
  /** Verdicts kept in this process. */
  maxEntries: number;
  /** Shared verdicts, asked on a miss; none in embedded mode. */
  store?: CatchAllStore;
}

/** Catch-all verdicts per ASCII domain, fresh for `ttlSeconds`. */
export class CatchAllMemory {
  readonly #ttlSeconds: number;
  readonly #store: CatchAllStore | undefined;
  readonly #clock: Clock;
  readonly #maxEntries: number;
  #made: LRUCache<string, boolean> | undefined;

  constructor(clock: Clock, options: CatchAllMemoryOptions) {
    this.#ttlSeconds = options.ttlSeconds;
    this.#store = options.store;
    this.#clock = clock;
    this.#maxEntries = Math.max(1, options.maxEntries);
  }

  // Made at first use: lru-cache allocates its arrays for every entry up front (about 2 MB for the
  // default 50,000 with their TTLs), which a server that probes nothing yet should not hold.
  get #entries(): LRUCache<string, boolean> {
    this.#made ??= new LRUCache({
      max: this.#maxEntries,
      ttl: Math.max(1, this.#ttlSeconds * 1000),
      perf: this.#clock,
      ttlResolution: 0,
    });
    return this.#made;
  }

  /** The verdict while fresh: this process's, else the shared store's (a failing store is a miss). */
  async lookup(domain: string): Promise<boolean | undefined> {
    const local = this.#cached(domain);
    if (local !== undefined || this.#store === undefined) return local;
    const shared = await this.#store.get(domain).catch(() => undefined);
    if (shared === undefined) return undefined;
    // Kept locally for the full TTL: a verdict may thus live up to twice its TTL, which is fine.
    if (this.#ttlSeconds > 0) this.#entries.set(domain, shared);
    return shared;
  }

  /** The known verdict as the random address's RCPT verdict, null when unknown. */
  randomVerdict(domain: string): RcptVerdict | null {
    const known = this.#cached(domain);
    if (known === undefined) return null;
    return known ? { kind: 'deliverable' } : { kind: 'undeliverable' };
  }

  /** Remembers the random address's verdict, here and in the shared store. */
  remember(domain: string, verdict: RcptVerdict): void {
    // Only a clear answer is remembered; a greylisted or blocked random probe proves nothing.
    if (verdict.kind !== 'deliverable' && verdict.kind !== 'undeliverable') return;
    const catchAll = verdict.kind === 'deliverable';
    if (this.#ttlSeconds > 0) this.#entries.set(domain, catchAll);
    this.#store?.set(domain, catchAll, this.#ttlSeconds).catch(() => {});
  }

  #cached(domain: string): boolean | undefined {
    return this.#entries.get(domain);
  }
}
