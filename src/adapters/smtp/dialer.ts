/**
 * The seam between the probe and the network: a dialer opens the TCP stream an SMTP session runs
 * on, straight to the MX address (`direct-dialer.ts`) or through a SOCKS5 proxy
 * (`socks-dialer.ts`). Either way it is given an address the probe resolved and the SSRF guard
 * passed, never a host name, and it is bounded by the connect timeout and the probe's signal.
 */
import type net from 'node:net';

/** One connection to open: an MX address (never a name), bounded in time and cancellable. */
export interface DialTarget {
  ip: string;
  port: number;
  /** The whole dial, proxy handshake included, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Why no stream was opened. */
export interface DialFailure {
  ok: false;
  failure: 'connect_failed' | 'timeout';
  detail: string;
  /**
   * True when the fault is the egress's (the proxy refused us or could not be reached), which says
   * nothing about the MX: its other addresses would fail the same way.
   */
  egressFault?: boolean;
}

export type DialResult = { ok: true; socket: net.Socket } | DialFailure;

/** One way out to MX hosts, and the EHLO name that belongs to its source address. */
export interface Dialer {
  /** Names this egress in per-address limit keys; '' for direct connections. */
  readonly id: string;
  /** The EHLO name of sessions opened this way; the probe's own identity when undefined. */
  readonly helo: string | undefined;
  /** Opens a stream to `target`; failures are values. */
  dial(target: DialTarget): Promise<DialResult>;
}

/** What a dial cut short by the probe's signal reports. */
export const DIAL_CANCELLED: DialFailure = { ok: false, failure: 'timeout', detail: 'cancelled' };

/**
 * The key of the per-address session limit and connection budget: each egress is its own source
 * address in the eyes of the MX, so limits count per (egress, address). Direct keys stay the plain
 * address.
 */
export function addressKey(dialer: Dialer, ip: string): string {
  return dialer.id === '' ? ip : `${dialer.id}/${ip}`;
}
