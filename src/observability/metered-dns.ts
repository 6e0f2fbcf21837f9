/**
 * A DnsResolver decorator that counts the queries another resolver answers, by question and
 * outcome. Put below the cache, around the resolver that talks to the DNS servers, it counts
 * what reaches them.
 */
import type { DnsAnswer, DnsResolver } from '../verification/ports.ts';
import type { MxRecord } from '../verification/report.ts';
import type { DnsQuestionType, MetricsRecorder } from './ports.ts';

/** Counts every query `inner` answers. */
export class MeteredDnsResolver implements DnsResolver {
  readonly #inner: DnsResolver;
  readonly #metrics: MetricsRecorder;

  constructor(inner: DnsResolver, metrics: MetricsRecorder) {
    this.#inner = inner;
    this.#metrics = metrics;
  }

  /** MX records of `domain`, counted. */
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    return this.#counted('mx', this.#inner.resolveMx(domain));
  }

  /** IPv4 addresses of `host`, counted. */
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    return this.#counted('a', this.#inner.resolveA(host));
  }

  /** IPv6 addresses of `host`, counted. */
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    return this.#counted('aaaa', this.#inner.resolveAaaa(host));
  }

  async #counted<T>(question: DnsQuestionType, pending: Promise<DnsAnswer<T>>): Promise<DnsAnswer<T>> {
    const answer = await pending;
    this.#metrics.dnsQuery(question, answer.kind);
    return answer;
  }
}
