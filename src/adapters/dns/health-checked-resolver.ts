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
  async resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    const sent = this.#health.now();
    return this.#judge(await this.#inner.resolveMx(domain), sent);
  }

  /** IPv4 addresses of `host`, failures judged. */
  async resolveA(host: string): Promise<DnsAnswer<string[]>> {
    const sent = this.#health.now();
    return this.#judge(await this.#inner.resolveA(host), sent);
  }

  /** IPv6 addresses of `host`, failures judged. */
  async resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    const sent = this.#health.now();
    return this.#judge(await this.#inner.resolveAaaa(host), sent);
  }

  async #judge<T>(answer: DnsAnswer<T>, sent: number): Promise<DnsAnswer<T>> {
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
