/**
 * A DnsResolver that says whose failure a failed lookup is. It sits between the resolver and the
 * cache (CachedDnsResolver → HealthCheckedDnsResolver → NodeDnsResolver), so the cache never keeps
 * an NXDOMAIN our broken resolver made up, and never shares it with other processes: on NXDOMAIN,
 * SERVFAIL or a timeout it asks ResolverHealth (for an NXDOMAIN, a check made after the lookup was
 * sent), and
 * - resolver broken: the answer becomes an error marked `ours` (NXDOMAIN as `unconfirmed_nxdomain`),
 *   kept only the cache's short error lifetime; the address is `dns_error`, refunded;
 * - resolver healthy: NXDOMAIN stands; an error is marked not ours (the domain's own zone is
 *   broken): still `dns_error`, but charged.
 */
import type { DnsAnswer, DnsResolver } from '../../verification/ports.ts';
import type { MxRecord } from '../../verification/report.ts';
import type { ResolverHealth } from './resolver-health.ts';

/** The inner resolver's answers, with failures judged by the resolver's health. */
export class HealthCheckedDnsResolver implements DnsResolver {
  readonly #inner: DnsResolver;
  readonly #health: ResolverHealth;

  constructor(inner: DnsResolver, health: ResolverHealth) {
    this.#inner = inner;
    this.#health = health;
  }

  /** MX records of `domain`, failures judged. */
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    return this.#judged(() => this.#inner.resolveMx(domain));
  }

  /** IPv4 addresses of `host`, failures judged. */
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    return this.#judged(() => this.#inner.resolveA(host));
  }

  /** IPv6 addresses of `host`, failures judged. */
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    return this.#judged(() => this.#inner.resolveAaaa(host));
  }

  /** Asks the inner resolver, noting when the question was sent, and judges the answer. */
  async #judged<T>(lookup: () => Promise<DnsAnswer<T>>): Promise<DnsAnswer<T>> {
    const sent = this.#health.now();
    const answer = await lookup();
    // NODATA is an answer too: the name's zone spoke. Only what a broken resolver also says is suspect.
    if (answer.kind === 'ok' || answer.kind === 'nodata') {
      this.#health.observe('answer');
      return answer;
    }
    this.#health.observe('failure');
    if (!this.#health.enabled) return answer.kind === 'error' ? { ...answer, ours: false } : answer;
    if (answer.kind === 'nxdomain') {
      // Only a resolver seen working after this lookup was sent vouches for its NXDOMAIN: a wrong
      // one makes a good address INVALID_DOMAIN.
      const healthy = await this.#health.healthySince(sent);
      return healthy ? answer : { kind: 'error', failure: 'unconfirmed_nxdomain', retry: true, ours: true };
    }
    // Whose SERVFAIL or timeout it is decides a refund only: the cached verdict is enough.
    const healthy = await this.#health.healthy();
    return { ...answer, ours: !healthy };
  }
}
