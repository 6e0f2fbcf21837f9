/**
 * How many SMTP connections the probe may open, so that it can never be hired as a port-25
 * scanner or a connection flooder: token buckets per destination address, per probed domain and
 * per account, shared by every process in scale-out (the rate limiter port, on Redis there), and a
 * short memory of addresses that refused a connection, which are not tried again meanwhile.
 *
 * The account's connections have a bucket of their own rather than drawing on its API request
 * rate: one bulk request is one request but up to 100 probes, list jobs run with no request at
 * all, and the API's RateLimit headers must keep meaning requests. The per-account bucket is
 * what stops one customer from turning the probe into a flooder; the per-address and per-domain
 * buckets protect each destination from every customer together. A bucket is taken from in the
 * order account, domain, address, so an attempt the account's own bucket holds back costs
 * nothing shared with other customers.
 */
import { LRUCache } from 'lru-cache';
import type { RateLimiter } from '../../usage/ports.ts';
import type { Clock } from '../../verification/ports.ts';

/** Connections per second each bucket refills at; each holds twice that (the burst). */
export interface ConnectionRates {
  perAddress: number;
  perDomain: number;
  perAccount: number;
  /** How long an address that refused a connection is left alone, ms. */
  refusedForMs: number;
}

/** Why a connection may not be opened now; null when it may. */
export type HeldBack = 'refused_recently' | 'address_rate' | 'domain_rate' | 'account_rate' | null;

/** Decides, per attempt, whether a connection may be opened; one per prober. */
export class ConnectionBudget {
  readonly #limiter: RateLimiter;
  readonly #clock: Clock;
  readonly #rates: ConnectionRates;
  readonly #refused = new LRUCache<string, number>({ max: 10_000 });

  constructor(limiter: RateLimiter, clock: Clock, rates: ConnectionRates) {
    this.#limiter = limiter;
    this.#clock = clock;
    this.#rates = rates;
  }

  /**
   * Takes one token from each bucket the attempt draws on, cheapest refusal first. A bucket that
   * cannot be asked (its store failing) lets the attempt through: the caps on hosts, addresses and
   * sessions still bound it. `ip` is the MX address, or through a proxy `<proxy>/<address>`
   * (`addressKey` in dialer.ts): each proxy is its own source address to the MX.
   */
  async take(ip: string, domain: string, accountId: string | undefined): Promise<HeldBack> {
    const until = this.#refused.get(ip);
    if (until !== undefined && until > this.#clock.now()) return 'refused_recently';
    if (
      accountId !== undefined &&
      !(await this.#allowed(`smtp:account:${accountId}`, this.#rates.perAccount))
    )
      return 'account_rate';
    if (!(await this.#allowed(`smtp:domain:${domain}`, this.#rates.perDomain))) return 'domain_rate';
    if (!(await this.#allowed(`smtp:ip:${ip}`, this.#rates.perAddress))) return 'address_rate';
    return null;
  }

  /** Remembers that `ip` refused a connection (nothing listens there). */
  refused(ip: string): void {
    this.#refused.set(ip, this.#clock.now() + this.#rates.refusedForMs);
  }

  async #allowed(bucket: string, rate: number): Promise<boolean> {
    try {
      return (await this.#limiter.take(bucket, rate)).allowed;
    } catch {
      return true;
    }
  }
}
