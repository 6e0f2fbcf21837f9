/**
 * The API's sender-domain checks: one unit of the monthly verification quota per check (charged
 * as `POST /verify` charges, by an atomic conditional update in the store), reports kept for a few
 * minutes per domain and selectors (a cached report is still charged: the cache spares the
 * domain's servers and our egress, not the quota), and a bound on the checks one account runs at
 * once. A report without a grade because our resolver cannot be trusted is our failure, not an
 * answer: its unit is given back, as a verification's `dns_error` of ours is. No HTTP here: the
 * route calls it.
 */
import { LRUCache } from 'lru-cache';
import { type Meter, verificationCeiling } from '../usage/meter.ts';
import { monthOf } from '../usage/months.ts';
import type { UsageStore } from '../usage/ports.ts';
import { type QuotaState, quotaState } from '../usage/verification-service.ts';
import type { DomainReport } from './run-checks.ts';

/**
 * Runs the checks of one domain (validated, ASCII) with these selectors, on behalf of an account
 * (its SMTP connections are counted against it).
 */
export type DomainCheckRun = (
  domain: string,
  selectors: readonly string[],
  accountId: string,
) => Promise<DomainReport>;

export interface DomainCheckServiceDeps {
  run: DomainCheckRun;
  usage: Pick<UsageStore, 'chargeVerifications' | 'refundVerifications'>;
  /** How long a report is reused, seconds (0: never). */
  cacheTtlSeconds: number;
  /** Checks one account may run at once; more are refused until one ends. */
  perAccount: number;
  /** Reports kept at most. */
  cacheEntries?: number;
  now?: () => Date;
}

/** A report as the caller gets it: from the cache or not. */
export interface ServedReport {
  report: DomainReport;
  cached: boolean;
}

export type DomainCheckOutcome =
  | ({ kind: 'ok'; quota: QuotaState } & ServedReport)
  | { kind: 'quota_exceeded'; quota: QuotaState }
  | { kind: 'busy'; running: number };

/** Checks sender domains for API callers, charging their quota. */
export class DomainCheckService {
  readonly #deps: DomainCheckServiceDeps;
  readonly #now: () => Date;
  readonly #cache: LRUCache<string, DomainReport>;
  /** Runs in progress by cache key: identical requests share one. */
  readonly #inFlight = new Map<string, Promise<DomainReport>>();
  readonly #running = new Map<string, number>();

  constructor(deps: DomainCheckServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#cache = new LRUCache({ max: deps.cacheEntries ?? 1000 });
  }

  /** Checks `domain` for the caller: one unit charged, or refused (quota, or too many at once). */
  async check(caller: Meter, domain: string, selectors: readonly string[]): Promise<DomainCheckOutcome> {
    const key = cacheKey(domain, selectors);
    const cached = this.#cache.get(key);
    // The slot is taken before the first wait (the charge), or requests arriving together would
    // all see the old count and all run. A cached report runs nothing and takes none.
    const holds = cached === undefined;
    if (holds) {
      const running = this.#running.get(caller.accountId) ?? 0;
      if (running >= this.#deps.perAccount) return { kind: 'busy', running };
      this.#running.set(caller.accountId, running + 1);
    }
    try {
      const now = this.#now();
      const month = monthOf(now);
      const ceiling = verificationCeiling(caller);
      const charge = await this.#deps.usage.chargeVerifications(caller, month, 1, ceiling);
      const quota = quotaState(ceiling, charge.used, now);
      if (charge.granted === 0) return { kind: 'quota_exceeded', quota };
      if (cached !== undefined) return { kind: 'ok', report: cached, cached: true, quota };
      try {
        const report = await this.#shared(key, domain, selectors, caller.accountId);
        if (report.grade !== null) return { kind: 'ok', report, cached: false, quota };
        await this.#deps.usage.refundVerifications(caller, month, 1);
        const used = { account: charge.used.account - 1, key: charge.used.key - 1 };
        return { kind: 'ok', report, cached: false, quota: quotaState(ceiling, used, now) };
      } catch (error) {
        // A bug, not an answer: the unit is given back.
        await this.#deps.usage.refundVerifications(caller, month, 1);
        throw error;
      }
    } finally {
      if (holds) {
        const left = (this.#running.get(caller.accountId) ?? 1) - 1;
        if (left <= 0) this.#running.delete(caller.accountId);
        else this.#running.set(caller.accountId, left);
      }
    }
  }

  #shared(
    key: string,
    domain: string,
    selectors: readonly string[],
    accountId: string,
  ): Promise<DomainReport> {
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending;
    const run = this.#deps
      .run(domain, selectors, accountId)
      .then((report) => {
        // A report with failed lookups or unfinished checks says more about the moment than the domain.
        if (this.#deps.cacheTtlSeconds > 0 && report.complete)
          this.#cache.set(key, report, { ttl: this.#deps.cacheTtlSeconds * 1000 });
        return report;
      })
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, run);
    return run;
  }
}

/** The cache key: the domain and its selectors, sorted (the same question, whatever the order). */
export function cacheKey(domain: string, selectors: readonly string[]): string {
  return `${domain}\u0000${[...new Set(selectors.map((each) => each.toLowerCase()))].sort().join(',')}`;
}
