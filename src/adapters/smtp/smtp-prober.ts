/**
 * The SMTP probe: MX hosts in preference order, RCPT TO without DATA, catch-all
 * detection once per domain (cached), and shared sessions: probes for one domain that arrive
 * together (a bulk request, a list) are queued and asked over one session per MX host, several
 * RCPTs per transaction (each transaction one round trip when the server offers PIPELINING). Its
 * parts: the queue per domain (`domain-queue.ts`), opening sessions under every cap and budget
 * (`mx-connector.ts`), asking a session about the queue (`session-drain.ts`) and the catch-all
 * memory (`catch-all-memory.ts`).
 *
 * One tenant must not be able to stall the probe for the others: each account may hold only
 * `accountProbes` sessions at once (its share of them; a session asks many of that domain's
 * addresses, so a list's throughput is not capped by it), every wait is bounded by the probe's own
 * timeout, and a probe nobody waits for any more leaves the queue; once nobody waits for a domain,
 * the sessions being opened or used for it are cancelled and their sockets closed.
 */
import type { Clock, DnsResolver, MailboxProber, ProbeRequest } from '../../verification/ports.ts';
import type { SmtpCheck } from '../../verification/report.ts';
import { CatchAllMemory } from './catch-all-memory.ts';
import type { ConnectionBudget } from './connection-budget.ts';
import type { Dialer } from './dialer.ts';
import { DomainQueue } from './domain-queue.ts';
import { MemoryHostLimiter } from './host-limiter/memory.ts';
import { MxConnector } from './mx-connector.ts';
import type { CatchAllStore, HostSessionLimiter, SmtpSessionEvents } from './ports.ts';
import { KeyedSemaphores, Semaphore } from './semaphore.ts';
import { drainQueue, unknownCheck } from './session-drain.ts';
import type { ProbeIdentity } from './smtp-session.ts';

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
  /**
   * The same when the server offers PIPELINING (a transaction is then one round trip whatever its
   * size); RFC 5321 §4.5.3.1.8 has every server take at least 100.
   */
  maxRecipientsPipelined?: number;
  /** Open sessions per MX host address, across all domains. */
  perHostSessions?: number;
  /** Open sessions in all. */
  maxSessions?: number;
  /** Sessions one account may hold at once: its share of them. */
  accountProbes?: number;
  /** MX hosts tried per session, and addresses per host. */
  maxMxHosts?: number;
  addressesPerHost?: number;
  /** The longest wait for a session slot at one MX address before trying the next. */
  hostWaitMs?: number;
  catchAllTtlSeconds?: number;
  /** Catch-all verdicts kept in this process's memory, least recently used dropped first. */
  catchAllEntries?: number;
  /** When a greylisting server gives no delay. */
  greylistRetrySeconds?: number;
  /**
   * How long a session with nothing left to ask stays open for the next probes of its domain (a
   * list's next batch): each connection opened costs the server a greeting and EHLO, and us a slot.
   */
  sessionLingerMs?: number;
  random?: () => number;
  /** Catch-all verdicts shared with other processes, asked when this process's map misses. */
  catchAllStore?: CatchAllStore;
  /** Caps sessions per MX host address; per process (perHostSessions) unless given. */
  hostLimiter?: HostSessionLimiter;
  /** Token buckets on connections per address, domain and account; none when omitted. */
  connectionBudget?: ConnectionBudget;
  /** SOCKS5 dialers (MAILVET_SMTP_PROXY), one sticky per probed domain; direct TCP when omitted. */
  egress?: readonly Dialer[];
  /** Told of each session opened and each attempt that gave none (metrics). */
  sessionEvents?: SmtpSessionEvents;
}

type Tuning = Required<
  Omit<SmtpProberOptions, 'catchAllStore' | 'hostLimiter' | 'connectionBudget' | 'egress' | 'sessionEvents'>
>;

/** Probes mailboxes over SMTP. */
export class SmtpProber implements MailboxProber {
  readonly #options: Tuning;
  readonly #queues = new Map<string, DomainQueue>();
  readonly #catchAll: CatchAllMemory;
  readonly #accountSessions: KeyedSemaphores;
  readonly #connector: MxConnector;

  constructor(dns: DnsResolver, clock: Clock, options: SmtpProberOptions) {
    this.#options = {
      maxRecipientsPerTransaction: 20,
      maxRecipientsPipelined: 100,
      perHostSessions: 2,
      maxSessions: 200,
      accountProbes: 50,
      maxMxHosts: 3,
      addressesPerHost: 2,
      hostWaitMs: 3000,
      catchAllTtlSeconds: 3600,
      catchAllEntries: 50_000,
      greylistRetrySeconds: 300,
      sessionLingerMs: 100,
      random: Math.random,
      ...options,
    };
    this.#catchAll = new CatchAllMemory(clock, {
      ttlSeconds: this.#options.catchAllTtlSeconds,
      maxEntries: this.#options.catchAllEntries,
      store: options.catchAllStore,
    });
    this.#accountSessions = new KeyedSemaphores(this.#options.accountProbes);
    this.#connector = new MxConnector(
      dns,
      { ...this.#options, egress: options.egress, events: options.sessionEvents },
      {
        host: options.hostLimiter ?? new MemoryHostLimiter(this.#options.perHostSessions),
        all: new Semaphore(this.#options.maxSessions),
      },
      options.connectionBudget,
    );
  }

  /** Probes one address; resolves within probeTimeoutMs whatever the server does. */
  probe(request: ProbeRequest): Promise<SmtpCheck> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (check: SmtpCheck) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(check);
      };
      let queue = this.#queues.get(request.asciiDomain);
      if (queue === undefined) {
        queue = new DomainQueue(request.mxHosts);
        this.#queues.set(request.asciiDomain, queue);
      }
      const inLine = queue;
      const waiting = inLine.enqueue(request, settle);
      const timer = setTimeout(() => {
        // Nobody waits for this answer any more: out of the queue, so no session opens for it.
        inLine.leave(waiting);
        settle(unknownCheck('timeout', null));
      }, this.#options.probeTimeoutMs);
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
      const worker = queue.startWorker();
      void this.#work(domain, queue, worker.signal).finally(() => {
        worker.done();
        if (queue.idle) {
          if (this.#queues.get(domain) === queue) this.#queues.delete(domain);
        } else if (queue.waiting.length > 0) this.#startWorkers(domain);
      });
    }
  }

  /**
   * One session's life: the account's share of sessions (an account past it waits here, holding no
   * session or slot), then the best reachable MX host, then the domain's queue drained.
   */
  async #work(domain: string, queue: DomainQueue, signal: AbortSignal): Promise<void> {
    const deadlineMs = Date.now() + this.#options.probeTimeoutMs;
    // The session counts against the account of the oldest probe it is opened for.
    const accountId = queue.waiting[0]?.request.accountId;
    const releaseShare = await this.#accountSessions.acquire(
      accountId ?? '',
      Math.max(0, deadlineMs - Date.now()),
    );
    if (releaseShare === null) {
      if (signal.aborted) return;
      for (const waiting of queue.waiting.splice(0)) waiting.resolve(unknownCheck('timeout', null));
      return;
    }
    try {
      if (!signal.aborted) await this.#session(domain, queue, signal, accountId, deadlineMs);
    } finally {
      releaseShare();
    }
  }

  async #session(
    domain: string,
    queue: DomainQueue,
    signal: AbortSignal,
    accountId: string | undefined,
    deadlineMs: number,
  ): Promise<void> {
    const opened = await this.#connector.open({
      domain,
      mxHosts: queue.mxHosts,
      accountId,
      deadlineMs,
      signal,
    });
    if ('reason' in opened) {
      // Cancelled: whoever queued since then was not waited for here and gets a fresh worker.
      if (signal.aborted) return;
      for (const waiting of queue.waiting.splice(0))
        waiting.resolve(unknownCheck(opened.reason, opened.reply, opened));
      return;
    }
    const { session, mxHost, mxAddress, release } = opened;
    try {
      await drainQueue(
        { domain, queue, session, mxHost, mxAddress, deadlineMs, signal },
        this.#catchAll,
        this.#options,
      );
    } finally {
      await session.quit();
      release();
    }
  }
}
