/**
 * The SMTP prober's own ports: what it remembers about domains and how it shares mail servers'
 * session slots. Each has a memory implementation (one process) and a Redis one (every process of
 * a scale-out deployment), in `catch-all/` and `host-limiter/`.
 */
import type { SmtpUnknownReason } from '../../verification/report.ts';

/** Catch-all verdicts per ASCII domain. */
export interface CatchAllStore {
  /** true/false when known and fresh, else undefined. */
  get(domain: string): Promise<boolean | undefined>;
  /** Remembers the verdict for `ttlSeconds` (0 or less remembers nothing). */
  set(domain: string, catchAll: boolean, ttlSeconds: number): Promise<void>;
}

/**
 * Grants session slots per MX host address: `hostIp` is the address, or through a proxy
 * `<proxy>/<address>` (`addressKey` in dialer.ts), since each proxy is its own source to the MX.
 */
export interface HostSessionLimiter {
  /**
   * Waits for a slot at `hostIp`, at most `waitMs` (the limiter's own bound when omitted); call the
   * returned function to give it back (calling it again does nothing). Rejects with
   * {@link HostBusyError} when no slot frees up in time.
   */
  acquire(hostIp: string, waitMs?: number): Promise<() => void>;
}

/** Told of each attempt to open a probe session (metrics); `mxHost` is the MX host's name. */
export interface SmtpSessionEvents {
  /** The host greeted and answered EHLO: a session is open. */
  opened(mxHost: string): void;
  /** The attempt gave no session, for `reason` (refused, timed out, blocked, ...). */
  failed(mxHost: string, reason: SmtpUnknownReason): void;
}

/** No slot at this host freed up within the limiter's wait limit: try another host. */
export class HostBusyError extends Error {
  constructor(readonly hostIp: string) {
    super(`no session slot free at ${hostIp}`);
    this.name = 'HostBusyError';
  }
}
