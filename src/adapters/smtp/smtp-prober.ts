/**
 * The SMTP probe (DESIGN §2): MX hosts in preference order, RCPT TO without DATA, catch-all
 * detection once per domain (cached), and shared sessions: probes for one domain that arrive
 * together (a bulk request, a list) are queued and asked over one session per MX host, several
 * RCPTs per transaction, under a per-host and a global cap on sessions.
 */
import { probeRefusal } from '../../verification/checks/smtp/address-guard.ts';
import { catchAllProbeLocalPart, combineWithCatchAll } from '../../verification/checks/smtp/catch-all.ts';
import type { RcptVerdict } from '../../verification/checks/smtp/reply.ts';
import type { Clock, DnsResolver, MailboxProber, ProbeRequest } from '../../verification/ports.ts';
import type { MxRecord, SmtpCheck, SmtpUnknownReason } from '../../verification/report.ts';
import type { CatchAllStore } from './catch-all-store.ts';
import { type HostSessionLimiter, MemoryHostLimiter } from './host-session-limiter.ts';
import { Semaphore } from './semaphore.ts';
import { type ProbeIdentity, type RcptOutcome, type SessionFailure, SmtpSession } from './smtp-session.ts';

export interface SmtpProberOptions {
  port: number;
  identity: ProbeIdentity;
  /** MAILVET_SMTP_ALLOW_PRIVATE: let MX addresses in private/loopback ranges be probed (tests). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** The most one probe() may take, whatever the server does. */
  probeTimeoutMs: number;
  /** RCPTs per transaction before a new MAIL FROM (a 452 "too many recipients" also starts one). */
  maxRecipientsPerTransaction?: number;
  /** Open sessions per MX host address, across all domains. */
  perHostSessions?: number;
  /** Open sessions in all. */
  maxSessions?: number;
  catchAllTtlSeconds?: number;
  /** When a greylisting server gives no delay. */
  greylistRetrySeconds?: number;
  random?: () => number;
  /** Catch-all verdicts shared with other processes, asked when this process's map misses. */
  catchAllStore?: CatchAllStore;
  /** Caps sessions per MX host address; per process (perHostSessions) unless given. */
  hostLimiter?: HostSessionLimiter;
}

type Tuning = Required<Omit<SmtpProberOptions, 'catchAllStore' | 'hostLimiter'>>;

interface Waiting {
  request: ProbeRequest;
  resolve: (check: SmtpCheck) => void;
}

interface DomainQueue {
  mxHosts: MxRecord[];
  waiting: Waiting[];
  workers: number;
}

/** Probes mailboxes over SMTP. */
export class SmtpProber implements MailboxProber {
  readonly #dns: DnsResolver;
  readonly #clock: Clock;
  readonly #options: Tuning;
  readonly #queues = new Map<string, DomainQueue>();
  readonly #catchAll = new Map<string, { catchAll: boolean; expiresMs: number }>();
  readonly #hostSessions: HostSessionLimiter;
  readonly #catchAllStore: CatchAllStore | undefined;
  readonly #allSessions: Semaphore;

  constructor(dns: DnsResolver, clock: Clock, options: SmtpProberOptions) {
    this.#dns = dns;
    this.#clock = clock;
    this.#options = {
      maxRecipientsPerTransaction: 20,
      perHostSessions: 2,
      maxSessions: 200,
      catchAllTtlSeconds: 3600,
      greylistRetrySeconds: 300,
      random: Math.random,
      ...options,
    };
    this.#hostSessions = options.hostLimiter ?? new MemoryHostLimiter(this.#options.perHostSessions);
    this.#catchAllStore = options.catchAllStore;
    this.#allSessions = new Semaphore(this.#options.maxSessions);
  }

  /** Probes one address; resolves within probeTimeoutMs whatever the server does. */
  probe(request: ProbeRequest): Promise<SmtpCheck> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(unknown('timeout', null)), this.#options.probeTimeoutMs);
      const settle = (check: SmtpCheck) => {
        clearTimeout(timer);
        resolve(check);
      };
      let queue = this.#queues.get(request.asciiDomain);
      if (queue === undefined) {
        queue = { mxHosts: request.mxHosts, waiting: [], workers: 0 };
        this.#queues.set(request.asciiDomain, queue);
      }
      queue.waiting.push({ request, resolve: settle });
      // Start workers on the next turn, so probes arriving together share sessions.
      setImmediate(() => this.#startWorkers(request.asciiDomain));
    });
  }

  #startWorkers(domain: string): void {
    const queue = this.#queues.get(domain);
    if (queue === undefined) return;
    const wanted = Math.min(
      this.#options.perHostSessions,
      Math.ceil(queue.waiting.length / this.#options.maxRecipientsPerTransaction),
    );
    while (queue.workers < wanted) {
      queue.workers += 1;
      void this.#work(domain, queue).finally(() => {
        queue.workers -= 1;
        if (queue.workers === 0 && queue.waiting.length === 0) this.#queues.delete(domain);
        else if (queue.waiting.length > 0) this.#startWorkers(domain);
      });
    }
  }

  /** One session's life: connect to the best reachable MX host, then drain the domain's queue. */
  async #work(domain: string, queue: DomainQueue): Promise<void> {
    const releaseGlobal = await this.#allSessions.acquire();
    try {
      const opened = await this.#openSession(queue.mxHosts);
      if ('reason' in opened) {
        for (const waiting of queue.waiting.splice(0)) waiting.resolve(unknown(opened.reason, opened.reply));
        return;
      }
      const { session, mxHost, release } = opened;
      try {
        await this.#drain(domain, queue, session, mxHost);
      } finally {
        await session.quit();
        release();
      }
    } finally {
      releaseGlobal();
    }
  }

  async #drain(domain: string, queue: DomainQueue, session: SmtpSession, mxHost: string): Promise<void> {
    for (;;) {
      const batch = queue.waiting.splice(0, this.#options.maxRecipientsPerTransaction);
      if (batch.length === 0) return;
      const internationalized = batch.some((w) => w.request.internationalized);
      const refused = await session.mailFrom(internationalized);
      if (refused !== null) {
        // The server refuses our envelope: nothing about these mailboxes can be learnt here.
        for (const waiting of [...batch, ...queue.waiting.splice(0)])
          waiting.resolve(unknown(refused.reason, refused.reply));
        return;
      }
      if (this.#catchAllStore !== undefined && this.#cachedCatchAll(domain) === undefined) {
        await this.#loadCatchAll(this.#catchAllStore, domain);
      }
      const probeCatchAll = this.#cachedCatchAll(domain) === undefined;
      const randomAddress = `${catchAllProbeLocalPart(this.#options.random)}@${domain}`;
      const addresses = batch.map((w) => `${w.request.localPart}@${w.request.asciiDomain}`);
      const outcomes = await session.rcptToMany(probeCatchAll ? [randomAddress, ...addresses] : addresses);
      const randomOutcome = probeCatchAll ? outcomes.shift()! : null;
      if (randomOutcome !== null) this.#rememberCatchAll(domain, randomOutcome.verdict);
      const randomVerdict = randomOutcome?.verdict ?? this.#knownCatchAllVerdict(domain);

      const retry: Waiting[] = [];
      batch.forEach((waiting, i) => {
        const outcome = outcomes[i]!;
        if (outcome.verdict.kind === 'too_many_recipients') retry.push(waiting);
        else waiting.resolve(this.#check(outcome, randomVerdict, mxHost, session));
      });
      if (retry.length === batch.length && randomOutcome?.verdict.kind !== 'too_many_recipients') {
        // Not even one recipient fits a transaction: the server's limit is not usable.
        for (const waiting of retry) waiting.resolve(unknown('protocol_error', outcomes[0]?.reply ?? null));
      } else {
        queue.waiting.unshift(...retry);
      }
      if (outcomes.some((o) => o.verdict.kind === 'unknown' && o.reply === null)) {
        // The connection broke: what is left waits for a fresh session.
        return;
      }
    }
  }

  #check(
    outcome: RcptOutcome,
    randomVerdict: RcptVerdict | null,
    mxHost: string,
    session: SmtpSession,
  ): SmtpCheck {
    const combined = combineWithCatchAll(outcome.verdict, randomVerdict);
    return {
      verdict: combined.verdict,
      catchAll: combined.catchAll,
      unknownReason: combined.unknownReason,
      reply: outcome.reply,
      mxHost,
      retryAfterSeconds: combined.unknownReason === 'greylisted' ? this.#retryAfter(outcome) : null,
      tls: { used: session.tls.used, verified: session.tls.authorized },
    };
  }

  #retryAfter(outcome: RcptOutcome): number {
    const stated = outcome.reply?.text.match(/(\d{1,5})\s*(?:s\b|sec|second)/i);
    const seconds = stated ? Number(stated[1]) : this.#options.greylistRetrySeconds;
    return Math.min(Math.max(seconds, 1), 86_400);
  }

  #cachedCatchAll(domain: string): boolean | undefined {
    const cached = this.#catchAll.get(domain);
    if (cached === undefined || cached.expiresMs <= this.#clock.now()) return undefined;
    return cached.catchAll;
  }

  /** Copies another process's verdict into the map; a failing store is a miss. */
  async #loadCatchAll(store: CatchAllStore, domain: string): Promise<void> {
    const shared = await store.get(domain).catch(() => undefined);
    if (shared === undefined) return;
    // Kept locally for the full TTL: a verdict may thus live up to twice its TTL, which is fine.
    const expiresMs = this.#clock.now() + this.#options.catchAllTtlSeconds * 1000;
    this.#catchAll.set(domain, { catchAll: shared, expiresMs });
  }

  #knownCatchAllVerdict(domain: string): RcptVerdict | null {
    const known = this.#cachedCatchAll(domain);
    if (known === undefined) return null;
    return known ? { kind: 'deliverable' } : { kind: 'undeliverable' };
  }

  #rememberCatchAll(domain: string, verdict: RcptVerdict): void {
    // Only a clear answer is remembered; a greylisted or blocked random probe proves nothing.
    if (verdict.kind !== 'deliverable' && verdict.kind !== 'undeliverable') return;
    const expiresMs = this.#clock.now() + this.#options.catchAllTtlSeconds * 1000;
    this.#catchAll.set(domain, { catchAll: verdict.kind === 'deliverable', expiresMs });
    this.#catchAllStore
      ?.set(domain, verdict.kind === 'deliverable', this.#options.catchAllTtlSeconds)
      .catch(() => {});
  }

  /** Tries the MX hosts in preference order, each address of each, skipping refused ranges. */
  async #openSession(
    mxHosts: readonly MxRecord[],
  ): Promise<{ session: SmtpSession; mxHost: string; release: () => void } | SessionFailure> {
    let last: SessionFailure = { reason: 'connect_failed', reply: null, unreachable: true };
    for (const mx of mxHosts) {
      for (const ip of await this.#addressesOf(mx.exchange)) {
        if (!this.#options.allowPrivate && probeRefusal(ip) !== null) {
          last = { reason: 'probe_refused', reply: null, unreachable: true };
          continue;
        }
        let release: () => void;
        try {
          release = await this.#hostSessions.acquire(ip);
        } catch {
          // Every slot at this address stayed taken (by other processes): try the next one.
          last = { reason: 'connect_failed', reply: null, unreachable: true };
          continue;
        }
        const opened = await SmtpSession.open(
          {
            ip,
            hostname: mx.exchange,
            port: this.#options.port,
            connectTimeoutMs: this.#options.connectTimeoutMs,
            commandTimeoutMs: this.#options.commandTimeoutMs,
          },
          this.#options.identity,
        );
        if (opened instanceof SmtpSession) return { session: opened, mxHost: mx.exchange, release };
        release();
        last = opened;
        // A host that answered and refused us speaks for the domain; only silence moves on.
        if (!opened.unreachable) return opened;
      }
    }
    return last;
  }

  async #addressesOf(host: string): Promise<string[]> {
    const [a, aaaa] = await Promise.all([this.#dns.resolveA(host), this.#dns.resolveAaaa(host)]);
    return [...(a.kind === 'ok' ? a.records : []), ...(aaaa.kind === 'ok' ? aaaa.records : [])];
  }
}

function unknown(reason: SmtpUnknownReason, reply: SmtpCheck['reply']): SmtpCheck {
  return {
    verdict: 'unknown',
    catchAll: null,
    unknownReason: reason,
    reply,
    mxHost: null,
    retryAfterSeconds: null,
    tls: null,
  };
}
