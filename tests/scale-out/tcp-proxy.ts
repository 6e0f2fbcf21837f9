/**
 * A TCP proxy on 127.0.0.1 in front of a shared service (PostgreSQL, Redis) whose link a test can
 * break and mend, so fault tests never have to stop the server other suites use.
 * `cut()` is a server that went away (open connections reset, new ones refused at once);
 * `blackhole()` is a network that drops packets (connections accepted, nothing ever forwarded), the
 * case that hangs a client without timeouts; `restore()` forwards again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'open' | 'cut' | 'blackhole';

/** A running proxy. */
export interface TcpProxy {
  port: number;
  readonly mode: ProxyMode;
  /** Resets every open connection and refuses new ones until `restore()`. */
  cut(): void;
  /** Stops forwarding on every connection, old and new, until `restore()` (which drops them). */
  blackhole(): void;
  /** Forwards new connections again. */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a random port of 127.0.0.1 forwarding to `upstreamHost:upstreamPort`. */
export async function startTcpProxy(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  const live = new Set<Socket>();
  const track = (socket: Socket): void => {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
    socket.on('error', () => {});
  };
  const dropAll = (): void => {
    for (const socket of live) socket.resetAndDestroy();
  };

  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'blackhole') {
      // Read and drop, never pause: a paused socket whose peer hangs up keeps libuv polling it in
      // a busy loop (libuv/libuv#2162), which once held a test process at full CPU for good.
      client.resume();
      return;
    }
    const upstream = connect({ host: upstreamHost, port: upstreamPort });
    track(upstream);
    // Forward by hand (not pipe) so that a blackhole can stop the flow both ways at once.
    client.on('data', (chunk) => {
      if (mode === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'open') client.write(chunk);
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');

  return {
    port: address.port,
    get mode() {
      return mode;
    },
    cut() {
      mode = 'cut';
      dropAll();
    },
    blackhole() {
      mode = 'blackhole';
    },
    restore() {
      // Connections that lived through a blackhole lost bytes: a real network would have reset
      // them too, eventually. Drop them so clients reconnect cleanly.
      if (mode === 'blackhole') dropAll();
      mode = 'open';
    },
    close() {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
