/**
 * Opens one probe session for a domain: the MX hosts in preference order, a few addresses of each,
 * under every bound that keeps the probe from being turned against anyone. At most `maxMxHosts`
 * hosts and `addressesPerHost` addresses each are tried (one only when the host took the
 * connection and never greeted); each attempt waits a bounded time for a per-address slot first,
 * then for a global one (never holding a global slot while waiting for a host), takes tokens from
 * the connection budget, and is cut short by the probe's deadline. With proxies configured, the
 * domain's one egress (`egress-choice.ts`) carries every attempt, with its own EHLO name, and the
 * per-address slots and budget count per (egress, address).
 */
import { probeRefusal } from '../../net/address-guard.ts';
import type { DnsResolver } from '../../verification/ports.ts';
import type { MxRecord } from '../../verification/report.ts';
import type { ConnectionBudget } from './connection-budget.ts';
import { addressKey, type Dialer } from './dialer.ts';
import { DIRECT_DIALER } from './direct-dialer.ts';
import { EgressChoice } from './egress-choice.ts';
import type { HostSessionLimiter, SmtpSessionEvents } from './ports.ts';
import type { Semaphore } from './semaphore.ts';
import { type ProbeIdentity, type SessionFailure, SmtpSession } from './smtp-session.ts';

export interface MxConnectorOptions {
  port: number;
  identity: ProbeIdentity;
  allowPrivate: boolean;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** MX hosts tried per session, best preference first. */
  maxMxHosts: number;
  /** Addresses (A, then AAAA) tried per MX host. */
  addressesPerHost: number;
  /** The longest wait for a session slot at one address before moving on. */
  hostWaitMs: number;
  /** SOCKS5 dialers, one sticky per probed domain; direct TCP when omitted or empty. */
  egress?: readonly Dialer[];
  /** Told of each session opened and each attempt that gave none (metrics). */
  events?: SmtpSessionEvents;
}

/** What one session attempt is for: the domain, on whose behalf, until when, while anyone waits. */
export interface SessionNeed {
  domain: string;
  mxHosts: readonly MxRecord[];
  accountId: string | undefined;
  deadlineMs: number;
  /** Aborted once nobody waits: waits end and sockets close at once. */
  signal: AbortSignal;
}

/** An open session and the function that gives back its slots. */
export interface OpenedSession {
  session: SmtpSession;
  mxHost: string;
  /** The address of the host the session is connected to. */
  mxAddress: string;
  release: () => void;
}

const TIMED_OUT: SessionFailure = { reason: 'timeout', reply: null, unreachable: true };
const HELD_BACK: SessionFailure = { reason: 'connect_failed', reply: null, unreachable: true };

/** Connects probe sessions to MX hosts within the caps. */
export class MxConnector {
  readonly #dns: DnsResolver;
  readonly #options: MxConnectorOptions;
  readonly #hostSlots: HostSessionLimiter;
  readonly #allSlots: Semaphore;
  readonly #budget: ConnectionBudget | undefined;
  readonly #egress: EgressChoice;

  constructor(
    dns: DnsResolver,
    options: MxConnectorOptions,
    slots: { host: HostSessionLimiter; all: Semaphore },
    budget?: ConnectionBudget,
  ) {
    this.#dns = dns;
    this.#options = options;
    this.#hostSlots = slots.host;
    this.#allSlots = slots.all;
    this.#budget = budget;
    this.#egress = new EgressChoice(options.egress?.length ? options.egress : [DIRECT_DIALER]);
  }

  /** The first session an MX host grants, or why none could be had. */
  async open(need: SessionNeed): Promise<OpenedSession | SessionFailure> {
    let last: SessionFailure = HELD_BACK;
    const dialer = this.#egress.for(need.domain);
    // MX hosts may share addresses: one that failed under one name would fail under the next.
    const tried = new Set<string>();
    for (const mx of need.mxHosts.slice(0, this.#options.maxMxHosts)) {
      const addresses = (await this.#addressesOf(mx.exchange)).slice(0, this.#options.addressesPerHost);
      for (const ip of addresses) {
        if (need.signal.aborted || Date.now() >= need.deadlineMs) return TIMED_OUT;
        if (tried.has(ip)) continue;
        tried.add(ip);
        if (!this.#options.allowPrivate && probeRefusal(ip) !== null) {
          last = {
            reason: 'probe_refused',
            reply: null,
            unreachable: true,
            mxHost: mx.exchange,
            mxAddress: ip,
          };
          continue;
        }
        const attempt = await this.#attempt(ip, mx.exchange, need, dialer);
        if ('session' in attempt) return attempt;
        // Cancelled mid-attempt: the socket was closed by us, which says nothing about the host.
        if (need.signal.aborted) return TIMED_OUT;
        // The proxy failed us: every other address would go through it too.
        if (attempt.egressFault) return attempt;
        last = attempt;
        // A host that answered and refused us speaks for the domain; only silence moves on.
        if (!attempt.unreachable) return attempt;
        // A host that takes connections and never greets is a tarpit: its next address would be too.
        if (attempt.silent) break;
      }
    }
    return last;
  }

  async #attempt(
    ip: string,
    hostname: string,
    need: SessionNeed,
    dialer: Dialer,
  ): Promise<OpenedSession | SessionFailure> {
    // Each egress is its own source address to the MX: its slots and tokens are its own.
    const key = addressKey(dialer, ip);
    if (this.#budget !== undefined && !(await this.#budgetAllows(key, need))) return HELD_BACK;
    let releaseHost: () => void;
    try {
      releaseHost = await this.#hostSlots.acquire(key, Math.min(this.#options.hostWaitMs, remaining(need)));
    } catch {
      // Every slot at this address stayed taken: another address may be free.
      return HELD_BACK;
    }
    const releaseAll = await this.#allSlots.acquire(remaining(need), need.signal);
    if (releaseAll === null || need.signal.aborted) {
      releaseHost();
      releaseAll?.();
      return TIMED_OUT;
    }
    const release = () => {
      releaseHost();
      releaseAll();
    };
    const left = remaining(need);
    const opened = await SmtpSession.open(
      {
        ip,
        hostname,
        port: this.#options.port,
        connectTimeoutMs: Math.min(this.#options.connectTimeoutMs, left),
        commandTimeoutMs: Math.min(this.#options.commandTimeoutMs, left),
        signal: need.signal,
        dialer,
      },
      dialer.helo === undefined ? this.#options.identity : { ...this.#options.identity, helo: dialer.helo },
    );
    if (opened instanceof SmtpSession) {
      this.#options.events?.opened(hostname);
      return { session: opened, mxHost: hostname, mxAddress: ip, release };
    }
    release();
    this.#options.events?.failed(hostname, opened.reason);
    if (opened.refused) this.#budget?.refused(key);
    return { ...opened, mxHost: hostname, mxAddress: ip };
  }

  /** Waits for the budget's tokens while the probe has time; false when it runs out first. */
  async #budgetAllows(key: string, need: SessionNeed): Promise<boolean> {
    for (;;) {
      const held = await this.#budget!.take(key, need.domain, need.accountId);
      if (held === null) return true;
      if (held === 'refused_recently') return false;
      const wait = Math.min(BUDGET_RETRY_MS, remaining(need));
      if (wait <= 0 || need.signal.aborted) return false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  async #addressesOf(host: string): Promise<string[]> {
    const [a, aaaa] = await Promise.all([this.#dns.resolveA(host), this.#dns.resolveAaaa(host)]);
    return [...(a.kind === 'ok' ? a.records : []), ...(aaaa.kind === 'ok' ? aaaa.records : [])];
  }
}

/** How often a probe held back by a token bucket asks again. */
const BUDGET_RETRY_MS = 250;

function remaining(need: SessionNeed): number {
  return Math.max(0, need.deadlineMs - Date.now());
}
