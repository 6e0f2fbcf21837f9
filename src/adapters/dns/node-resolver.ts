/**
 * The DNS port over `node:dns` `promises.Resolver` (c-ares, its own sockets). Never `dns.lookup`:
 * that runs getaddrinfo on libuv's 4-thread pool and serializes under load.
 */
import { promises as dnsPromises } from 'node:dns';
import { isIPv4, isIPv6 } from 'node:net';
import type { DnsAnswer, DnsResolver } from '../../verification/ports.ts';
import type { DnsFailure, MxRecord } from '../../verification/report.ts';

/** How the resolver talks to its servers. */
export interface NodeDnsResolverOptions {
  /**
   * Resolver addresses as `host[:port]` (IPv6 as `[::1]:53`), as in `MAILVET_DNS_SERVERS`; IP
   * addresses only. Empty or absent: the system's resolvers.
   */
  servers?: readonly string[];
  /** c-ares timeout of one try, milliseconds (default 2000). */
  timeoutMs?: number;
  /** c-ares tries per server (default 2). */
  tries?: number;
  /**
   * Hard bound on one lookup, milliseconds (default timeoutMs × tries). c-ares backs off and
   * rounds its timers, so its own total is not a reliable bound; this one is.
   */
  deadlineMs?: number;
  /**
   * Most queries on the wire at once (default 128); more wait their turn. A burst of thousands of
   * UDP answers overflows socket buffers and turns into retries and timeouts.
   */
  maxInFlight?: number;
  /** TTL reported for MX answers: node's API does not expose it (default 300 s). */
  mxTtlSeconds?: number;
  /** TTL reported for NXDOMAIN/NODATA: node's API does not expose the SOA minimum (default 300 s). */
  negativeTtlSeconds?: number;
}

type Outcome<T> = DnsAnswer<T>;

const DEADLINE_PASSED = Symbol('deadline');

/** The `in-addr.arpa` or `ip6.arpa` name of an IP address (RFC 1035 §3.5, RFC 3596 §2.5). */
function arpaName(address: string): string {
  if (isIPv4(address)) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const full = [
    ...groups(head),
    ...Array<string>(address.includes('::') ? missing : 0).fill('0'),
    ...groups(tail),
  ];
  const nibbles = full.map((group) => group.padStart(4, '0')).join('');
  return `${nibbles.split('').reverse().join('.')}.ip6.arpa`;
}

/** Maps a c-ares error code to an answer; anything unrecognised is our network's trouble. */
export function answerForErrorCode(code: unknown, negativeTtlSeconds: number): Outcome<never> {
  switch (code) {
    case 'ENOTFOUND':
      return { kind: 'nxdomain', ttlSeconds: negativeTtlSeconds };
    case 'ENODATA':
      return { kind: 'nodata', ttlSeconds: negativeTtlSeconds };
    default:
      return { kind: 'error', failure: failureForErrorCode(code), retry: true };
  }
}

/** At most 253 octets in all and 63 per label (RFC 1035), as c-ares checked before sending. */
function fitsDns(name: string): boolean {
  const octets = Buffer.byteLength(name.endsWith('.') ? name.slice(0, -1) : name);
  return octets <= 253 && name.split('.').every((label) => Buffer.byteLength(label) <= 63);
}

function failureForErrorCode(code: unknown): DnsFailure {
  switch (code) {
    case 'ESERVFAIL':
      return 'servfail';
    case 'ETIMEOUT':
      return 'timeout';
    case 'ECONNREFUSED':
    case 'EREFUSED':
      return 'refused';
    default:
      return 'network';
  }
}

/** The DnsResolver port over c-ares, with bounded tries and a hard per-lookup deadline. */
export class NodeDnsResolver implements DnsResolver {
  readonly #resolver: dnsPromises.Resolver;
  readonly #deadlineMs: number;
  readonly #mxTtlSeconds: number;
  readonly #negativeTtlSeconds: number;
  readonly #maxInFlight: number;
  #inFlight = 0;
  /** Lookups waiting for a free place, oldest first from `#waitingHead`. */
  #waiting: Array<(() => void) | undefined> = [];
  #waitingHead = 0;

  /** Throws on a malformed server address: that is a configuration bug, found at start-up. */
  constructor(options: NodeDnsResolverOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 2000;
    const tries = options.tries ?? 2;
    this.#resolver = new dnsPromises.Resolver({ timeout: timeoutMs, tries });
    const servers = (options.servers ?? []).map((server) => server.trim()).filter((s) => s !== '');
    if (servers.length > 0) this.#resolver.setServers(servers);
    this.#deadlineMs = options.deadlineMs ?? timeoutMs * tries;
    this.#mxTtlSeconds = options.mxTtlSeconds ?? 300;
    this.#negativeTtlSeconds = options.negativeTtlSeconds ?? 300;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? 128);
  }

  /** MX records of `domain`; a null MX comes back as `[{exchange: '', priority: 0}]`. */
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>> {
    return this.#ask<MxRecord[], MxRecord[]>(
      domain,
      (name) => this.#resolver.resolveMx(name),
      (records) =>
        records.length === 0
          ? { kind: 'nodata', ttlSeconds: this.#negativeTtlSeconds }
          : {
              kind: 'ok',
              // Only the two fields: Node 24's records also carry `type`, and answers are compared,
              // cached and shared between processes as plain values.
              records: records.map(({ exchange, priority }) => ({ exchange, priority })),
              ttlSeconds: this.#mxTtlSeconds,
            },
    );
  }

  /** IPv4 addresses of `host`, with the smallest record TTL. */
  resolveA(host: string): Promise<DnsAnswer<string[]>> {
    return this.#ask(host, (name) => this.#resolver.resolve4(name, { ttl: true }), this.#addressAnswer);
  }

  /** IPv6 addresses of `host`, with the smallest record TTL. */
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>> {
    return this.#ask(host, (name) => this.#resolver.resolve6(name, { ttl: true }), this.#addressAnswer);
  }

  /** PTR names of an IP address, without trailing dot (the host check's reverse DNS). */
  resolvePtr(address: string): Promise<DnsAnswer<string[]>> {
    // A PTR query of the arpa name: `reverse()` would read /etc/hosts first.
    return this.#ask(
      arpaName(address),
      (name) => this.#resolver.resolvePtr(name),
      (names): DnsAnswer<string[]> =>
        names.length === 0
          ? { kind: 'nodata', ttlSeconds: this.#negativeTtlSeconds }
          : {
              kind: 'ok',
              records: names.map((name) => name.replace(/\.$/, '')),
              ttlSeconds: this.#mxTtlSeconds,
            },
    );
  }

  /** TXT strings of `name`, each record's chunks joined (SPF, DMARC). */
  resolveTxt(name: string): Promise<DnsAnswer<string[]>> {
    return this.#ask(
      name,
      (host) => this.#resolver.resolveTxt(host),
      (records): DnsAnswer<string[]> =>
        records.length === 0
          ? { kind: 'nodata', ttlSeconds: this.#negativeTtlSeconds }
          : { kind: 'ok', records: records.map((chunks) => chunks.join('')), ttlSeconds: this.#mxTtlSeconds },
    );
  }

  /** Cancels every outstanding lookup (they answer `error`), e.g. at shutdown. */
  cancel(): void {
    this.#resolver.cancel();
  }

  readonly #addressAnswer = (records: Array<{ address: string; ttl: number }>): DnsAnswer<string[]> => {
    if (records.length === 0) return { kind: 'nodata', ttlSeconds: this.#negativeTtlSeconds };
    let ttlSeconds = Number.POSITIVE_INFINITY;
    const addresses: string[] = [];
    for (const record of records) {
      addresses.push(record.address);
      if (record.ttl < ttlSeconds) ttlSeconds = record.ttl;
    }
    return { kind: 'ok', records: addresses, ttlSeconds };
  };

  async #ask<R, T>(
    name: string,
    query: (name: string) => Promise<R>,
    toAnswer: (records: R) => DnsAnswer<T>,
  ): Promise<DnsAnswer<T>> {
    // c-ares reads names as C strings: "a\0b.test" would silently become "a". Refuse to ask.
    if (name.includes('\0')) return { kind: 'error', failure: 'network', retry: true };
    // Nor a name DNS cannot carry: older c-ares refused it (EBADNAME), the one in Node 24 sends
    // some of it. Answered as c-ares used to, whatever the Node.
    if (!fitsDns(name)) return answerForErrorCode('EBADNAME', this.#negativeTtlSeconds);
    if (this.#inFlight < this.#maxInFlight) this.#inFlight++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await this.#query(name, query, toAnswer);
    } finally {
      this.#release();
    }
  }

  /** Hands this lookup's place to the oldest waiting one, or frees it. */
  #release(): void {
    const next = this.#waiting[this.#waitingHead];
    if (next === undefined) {
      this.#inFlight--;
      return;
    }
    this.#waiting[this.#waitingHead++] = undefined;
    if (this.#waitingHead === this.#waiting.length) {
      this.#waiting = [];
      this.#waitingHead = 0;
    } else if (this.#waitingHead >= 4096) {
      this.#waiting = this.#waiting.slice(this.#waitingHead);
      this.#waitingHead = 0;
    }
    next();
  }

  /** One query on the wire, bounded by the deadline. */
  #query<R, T>(
    name: string,
    query: (name: string) => Promise<R>,
    toAnswer: (records: R) => DnsAnswer<T>,
  ): Promise<DnsAnswer<T>> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof DEADLINE_PASSED>((resolve) => {
      timer = setTimeout(resolve, this.#deadlineMs, DEADLINE_PASSED);
      timer.unref();
    });
    let lookup: Promise<R>;
    try {
      lookup = query(name);
    } catch (error) {
      // Node validates some arguments synchronously; expected failures are values here.
      clearTimeout(timer);
      return Promise.resolve(
        answerForErrorCode((error as { code?: unknown }).code, this.#negativeTtlSeconds),
      );
    }
    return Promise.race([lookup, deadline]).then(
      (records): DnsAnswer<T> => {
        clearTimeout(timer);
        return records === DEADLINE_PASSED
          ? { kind: 'error', failure: 'timeout', retry: true }
          : toAnswer(records as R);
      },
      (error: { code?: unknown }): DnsAnswer<T> => {
        clearTimeout(timer);
        return answerForErrorCode(error?.code, this.#negativeTtlSeconds);
      },
    );
  }
}
