/**
 * The mail posture of domains (SPF and DMARC), looked up once per domain and kept an hour: the
 * records change rarely, and a busy catch-all domain must not cost two TXT lookups per address.
 * A failed lookup is kept only a minute, so a passing DNS fault does not hide the posture long.
 */
import { LRUCache } from 'lru-cache';
import { lookUpMailPosture, type PostureDns } from '../mail-auth/mail-posture.ts';
import type { MailPosture } from '../verification/catch-all/types.ts';

export interface MailPostureCacheOptions {
  /** Most domains kept (default 10,000). */
  maxDomains?: number;
  /** How long a posture is kept, ms (default one hour). */
  ttlMs?: number;
  /** How long a failed lookup is kept, ms (default one minute). */
  failureTtlMs?: number;
}

/** Looks postures up through `dns`, cached per domain. */
export class MailPostureCache {
  readonly #dns: PostureDns;
  readonly #failureTtlMs: number;
  readonly #options: MailPostureCacheOptions;
  #made: LRUCache<string, { posture: MailPosture | null }> | undefined;
  readonly #inFlight = new Map<string, Promise<MailPosture | null>>();

  constructor(dns: PostureDns, options: MailPostureCacheOptions = {}) {
    this.#dns = dns;
    this.#failureTtlMs = options.failureTtlMs ?? 60_000;
    this.#options = options;
  }

  // Made at first use: lru-cache allocates its arrays for every entry up front.
  get #postures(): LRUCache<string, { posture: MailPosture | null }> {
    this.#made ??= new LRUCache({
      max: this.#options.maxDomains ?? 10_000,
      ttl: this.#options.ttlMs ?? 3_600_000,
    });
    return this.#made;
  }

  /** The domain's posture; null when a lookup failed. */
  postureOf(domain: string): Promise<MailPosture | null> {
    const known = this.#postures.get(domain);
    if (known !== undefined) return Promise.resolve(known.posture);
    const pending = this.#inFlight.get(domain);
    if (pending !== undefined) return pending;
    const lookup = lookUpMailPosture(this.#dns, domain)
      .catch(() => null)
      .then((posture) => {
        this.#postures.set(domain, { posture }, posture === null ? { ttl: this.#failureTtlMs } : {});
        return posture;
      })
      .finally(() => this.#inFlight.delete(domain));
    this.#inFlight.set(domain, lookup);
    return lookup;
  }
}
