/**
 * Ports of the host check (`mailvet doctor`): the DNS questions it asks and a port-25 dialer.
 * Adapters implement them; the composition root wires them. This folder opens no socket itself.
 */
import type { SpfDns } from '../mail-auth/spf/ports.ts';
import type { DnsAnswer, DnsResolver } from '../verification/ports.ts';

/** The pipeline's resolver plus the record types the host check needs (reverse names, TXT). */
export interface DoctorDns extends DnsResolver, SpfDns {
  /** Names of the PTR records of `address` (an IPv4 or IPv6 address), without trailing dot. */
  resolvePtr(address: string): Promise<DnsAnswer<string[]>>;
}

/** Where the dialer connects: an IP address and a port. */
export interface DialTarget {
  ip: string;
  port: number;
}

/** What a dialer is asked to do: connect, read the banner, say EHLO, quit. */
export interface DialRequest extends DialTarget {
  helo: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  signal?: AbortSignal;
}

/** One server reply, as read. */
export interface DialReply {
  code: number;
  text: string;
}

/** Why no SMTP greeting came. */
export type DialFailure = 'refused' | 'timeout' | 'unreachable' | 'no_banner' | 'error';

/** What one dial found. Expected failures are values. */
export type DialOutcome =
  | {
      kind: 'greeted';
      banner: DialReply;
      /** The EHLO reply; null when the server closed or stalled before answering it. */
      ehlo: DialReply | null;
      /** Our side of the socket, as this host sees it (behind NAT the world sees another). */
      localAddress: string | null;
    }
  | { kind: 'failed'; failure: DialFailure; detail: string };

/** Connects to port 25 of a mail host and has the shortest polite conversation. */
export interface Port25Dialer {
  dial(request: DialRequest): Promise<DialOutcome>;
}
