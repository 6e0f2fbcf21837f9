/**
 * SOCKS5 egress (RFC 1928, with RFC 1929 user and password): the probe's TCP stream runs through
 * an operator's proxy, so MX hosts see the proxy's address. The proxy is given the MX address the
 * probe resolved and the SSRF guard passed, never a name (a proxy resolving names could be pointed
 * anywhere); its own address is operator configuration, not guarded. The connect timeout and the
 * probe's signal bound the proxy handshake too.
 *
 * A failure that is the proxy's (unreachable, authentication refused, not a SOCKS5 server) is a
 * `connect_failed` marked as the egress's fault, and one warn line names the proxy by
 * `socks5://[user@]host:port` and the cause (never the password); the same cause is told again at
 * most once a minute, with how many were left untold. A failure of the proxy to reach the MX is the
 * MX's, as if we had connected ourselves.
 */
import net from 'node:net';
import type { SmtpProxy } from '../../config.ts';
import { DIAL_CANCELLED, type Dialer, type DialFailure, type DialResult, type DialTarget } from './dialer.ts';

/** The SOCKS client library, loaded at the first dial: a deployment without proxies never needs it. */
let socksLibrary: Promise<typeof import('socks')> | undefined;

/** How often one cause of one proxy is told again while it lasts, ms. */
const WARN_EVERY_MS = 60_000;

/** SOCKS5 replies (RFC 1928 §6) that are the proxy's refusal rather than the MX's answer. */
const PROXY_REFUSALS = new Set(['NotAllowed', 'CommandNotSupported', 'AddressNotSupported']);

/** Dials MX addresses through one SOCKS5 proxy. */
export class SocksDialer implements Dialer {
  readonly id: string;
  readonly helo: string | undefined;
  readonly #proxy: SmtpProxy;
  readonly #warn: (message: string) => void;
  readonly #told = new Map<string, { at: number; untold: number }>();

  constructor(proxy: SmtpProxy, warn: (message: string) => void) {
    this.#proxy = proxy;
    this.#warn = warn;
    this.helo = proxy.helo;
    const host = net.isIPv6(proxy.host) ? `[${proxy.host}]` : proxy.host;
    this.id = `socks5://${proxy.user === undefined ? '' : `${proxy.user}@`}${host}:${proxy.port}`;
  }

  /** Connects to the proxy and has it connect to `target`, all within `timeoutMs`. */
  async dial(target: DialTarget): Promise<DialResult> {
    const { signal } = target;
    if (net.isIP(target.ip) === 0)
      return { ok: false, failure: 'connect_failed', detail: 'not an IP address' };
    socksLibrary ??= import('socks');
    const { SocksClient } = await socksLibrary;
    if (signal?.aborted) return DIAL_CANCELLED;
    return new Promise((resolve) => {
      const socket = net.connect({ host: this.#proxy.host, port: this.#proxy.port });
      socket.setNoDelay(true);
      let reachedProxy = false;
      let settled = false;
      const finish = (result: DialResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
        if (!result.ok) socket.destroy();
        resolve(result);
      };
      const cancel = () => finish(DIAL_CANCELLED);
      signal?.addEventListener('abort', cancel, { once: true });
      const timer = setTimeout(() => {
        if (!reachedProxy)
          finish(this.#proxyFault(`no connection to the proxy within ${target.timeoutMs} ms`));
        else
          finish({
            ok: false,
            failure: 'timeout',
            detail: `no connection through the proxy within ${target.timeoutMs} ms`,
          });
      }, target.timeoutMs);
      socket.once('error', (error: NodeJS.ErrnoException) =>
        finish(
          this.#proxyFault(
            error.code === 'ECONNREFUSED'
              ? 'proxy refused connection'
              : `proxy unreachable (${error.message})`,
          ),
        ),
      );
      socket.once('connect', () => {
        reachedProxy = true;
        // The SOCKS client handles the socket's errors from here, and hands it back paused.
        socket.removeAllListeners('error');
        SocksClient.createConnection({
          command: 'connect',
          proxy: {
            host: this.#proxy.host,
            port: this.#proxy.port,
            type: 5,
            ...(this.#proxy.user !== undefined && {
              userId: this.#proxy.user,
              password: this.#proxy.password,
            }),
          },
          destination: { host: target.ip, port: target.port },
          existing_socket: socket,
          timeout: Math.max(1, target.timeoutMs),
        }).then(
          () => finish({ ok: true, socket }),
          // Past a timeout or cancellation the failure is ours: nothing to tell about the proxy.
          (error: unknown) => {
            if (!settled) finish(this.#handshakeFailure(error, target));
          },
        );
      });
    });
  }

  /** What a failed SOCKS handshake means: the proxy's fault, or the MX's answer relayed. */
  #handshakeFailure(error: unknown, target: DialTarget): DialFailure {
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('Socks5 Authentication failed'))
      return this.#proxyFault('SOCKS5 authentication failed');
    if (message.includes('no accepted authentication type')) {
      return this.#proxyFault(
        this.#proxy.user === undefined
          ? 'SOCKS5 authentication failed (the proxy asks for a user and password)'
          : 'SOCKS5 authentication failed (the proxy takes no user and password)',
      );
    }
    const rejected = /^Socks5 proxy rejected connection - (\w+)/.exec(message)?.[1];
    if (rejected !== undefined && PROXY_REFUSALS.has(rejected)) {
      return this.#proxyFault(`proxy refused connection to port ${target.port} (${rejected})`);
    }
    if (rejected !== undefined) {
      // The proxy reached out and the MX did not answer: the same as a direct attempt failing.
      const detail =
        rejected === 'ConnectionRefused'
          ? `ECONNREFUSED ${target.ip}:${target.port} (through the proxy)`
          : `${target.ip}:${target.port} unreachable through the proxy (${rejected})`;
      return { ok: false, failure: 'connect_failed', detail };
    }
    if (message === 'Socket closed')
      return this.#proxyFault('proxy closed the connection during the SOCKS5 handshake');
    if (message === 'Proxy connection timed out') {
      return { ok: false, failure: 'timeout', detail: 'no connection through the proxy in time' };
    }
    return this.#proxyFault(`SOCKS5 handshake failed (${message})`);
  }

  /** A connect_failed that is the proxy's fault, told in one warn line (at most once a minute per cause). */
  #proxyFault(cause: string): DialFailure {
    const now = Date.now();
    const told = this.#told.get(cause);
    if (told !== undefined && now - told.at < WARN_EVERY_MS) {
      told.untold += 1;
    } else {
      const untold =
        told === undefined || told.untold === 0 ? '' : ` (${told.untold} more since the last line)`;
      this.#warn(`SMTP proxy ${this.id}: ${cause}; probes through it fail with connect_failed${untold}`);
      this.#told.set(cause, { at: now, untold: 0 });
    }
    return {
      ok: false,
      failure: 'connect_failed',
      detail: `SMTP proxy ${this.id}: ${cause}`,
      egressFault: true,
    };
  }
}
