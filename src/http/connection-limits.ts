/**
 * Limits on the sockets themselves, before any request: tens of thousands of idle sockets from
 * one client used to make the server reset every new connection. Node drops sockets over
 * `maxConnections`; one client address may hold at most `perClientAddress` (the rest are closed at
 * once); a socket that has not sent a whole request head within `headersTimeoutMs` is closed, and
 * so is an idle keep-alive socket after `keepAliveTimeoutMs`.
 *
 * Behind a reverse proxy every socket comes from the proxy's address: set the per-client limit
 * in the proxy then (docs/security.md), and this one to the proxy's own connection count.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  perClientAddress: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** How often Node looks for sockets past the headers timeout (its default, 30 s, is too coarse). */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** Applies the limits to a listening or soon-listening server; `warn` hears of refused clients. */
export function applyConnectionLimits(
  server: Server,
  limits: ConnectionLimits,
  warn: (message: string, fields: Record<string, unknown>) => void,
): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const open = new Map<string, number>();
  const warned = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.perClientAddress) {
      socket.destroy();
      const now = Date.now();
      // Once a minute per address: an attack must not flood the log as well.
      if ((warned.get(address) ?? 0) < now - 60_000) {
        warned.set(address, now);
        if (warned.size > 10_000) warned.clear();
        warn('too many connections from one address: refusing more', {
          client: address,
          limit: limits.perClientAddress,
        });
      }
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
