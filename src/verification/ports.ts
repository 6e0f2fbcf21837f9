/**
 * Ports: the only ways the verification core reaches the outside world. Adapters in
 * `src/adapters/` implement them; the composition root wires them. The core imports no socket,
 * framework or database library.
 */
import type { DnsFailure, MxRecord, SmtpCheck } from './report.ts';

/**
 * The answer to one DNS question. Expected failures are values: `error` carries a retry hint
 * because SERVFAIL and timeouts say nothing lasting about the address.
 */
export type DnsAnswer<T> =
  | { kind: 'ok'; records: T; ttlSeconds: number }
  | { kind: 'nxdomain'; ttlSeconds: number }
  | { kind: 'nodata'; ttlSeconds: number }
  | {
      kind: 'error';
      failure: DnsFailure;
      retry: true;
      /**
       * Whose failure it is, when a resolver health check knows: true when our resolver failed its
       * control queries too (an NXDOMAIN it gave then arrives here as an error), false when it
       * answered them, so the domain's own servers are at fault. Absent: not known, taken as ours.
       */
      ours?: boolean;
    };

/** A DNS resolver for the questions the pipeline asks. */
export interface DnsResolver {
  /** MX records of `domain` (ASCII); a null MX comes back as `[{exchange: '', priority: 0}]`. */
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>>;
  /** IPv4 addresses of `host`. */
  resolveA(host: string): Promise<DnsAnswer<string[]>>;
  /** IPv6 addresses of `host`. */
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>>;
}

/** What the SMTP stage is asked: one address at a domain whose mail route is known. */
export interface ProbeRequest {
  /** The address to probe (local part as given, ASCII domain). */
  address: string;
  localPart: string;
  asciiDomain: string;
  /** MX hosts in preference order (the domain itself for an implicit MX). */
  mxHosts: MxRecord[];
  /** The local part needs SMTPUTF8. */
  internationalized: boolean;
  /** On whose behalf: probe capacity is shared fairly between accounts. */
  accountId?: string;
  /**
   * More addresses at this domain follow soon (a list job's batch): the session may stay open a
   * moment for them instead of quitting as soon as its queue is empty.
   */
  moreToCome?: boolean;
}

/** Who a verification is for (none for the command line). */
export interface VerifyContext {
  accountId?: string;
  /** Part of a run of addresses (a list job): see ProbeRequest.moreToCome. */
  moreToCome?: boolean;
}

/** The SMTP stage: probes mailboxes (the SMTP adapter, or one that skips when probing is off). */
export interface MailboxProber {
  probe(request: ProbeRequest): Promise<SmtpCheck>;
}

/** A clock, so caches and durations are testable. */
export interface Clock {
  /** Milliseconds, monotonic enough for durations and TTLs. */
  now(): number;
}
