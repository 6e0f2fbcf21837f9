/**
 * A SOCKS5 proxy for tests (RFC 1928 CONNECT; RFC 1929 user and password when it has users): it
 * records each CONNECT's destination as sent (an address or a name), the user who asked, and counts
 * sessions, open and at most at once, so tests can see what the probe gave a proxy and how many
 * sessions it held through it.
 */
import net from 'node:net';
import { listen } from './raw-smtp.ts';

/** One CONNECT request, as the client sent it. */
export interface SocksConnect {
  /** The destination: an address for ATYP 1 and 4, the name for ATYP 3. */
  host: string;
  addressType: 'ipv4' | 'domain' | 'ipv6';
  port: number;
  /** The RFC 1929 user, or null without authentication. */
  user: string | null;
}

/** What the proxy saw. */
export interface SocksStats {
  /** TCP connections accepted. */
  clients: number;
  /** Every CONNECT request, granted or not, in order. */
  connects: SocksConnect[];
  /** Users whose password was wrong, in order. */
  failedLogins: string[];
  /** Relayed sessions now open, and the most open at once. */
  open: number;
  peak: number;
  /** Relayed sessions in all. */
  sessions: number;
}

/** How to start a proxy. */
export interface SocksServerOptions {
  /** user -> password; when given, RFC 1929 is required, else no authentication. */
  users?: Readonly<Record<string, string>>;
  host?: string;
  /** Called when a relayed session opens (+1) and closes (-1): peaks across several proxies. */
  onSession?: (delta: 1 | -1) => void;
}

/** A running proxy. */
export interface SocksServer {
  host: string;
  port: number;
  stats: SocksStats;
  /** Zeroes the counters; sessions still open stay counted as open (and as the peak so far). */
  reset(): void;
  /** Resolves once no relayed session is open. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const REPLY = { granted: 0, failure: 1, hostUnreachable: 4, refused: 5, commandNotSupported: 7 } as const;

/** Starts a SOCKS5 proxy on a free port of `host` (127.0.0.1 by default). */
export async function startSocksServer(options: SocksServerOptions = {}): Promise<SocksServer> {
  const host = options.host ?? '127.0.0.1';
  const stats: SocksStats = { clients: 0, connects: [], failedLogins: [], open: 0, peak: 0, sessions: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    stats.clients += 1;
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void serve(client, options, stats, sockets);
  });
  const port = await listen(server, 0, host);
  return {
    host,
    port,
    stats,
    reset: () =>
      Object.assign(stats, { clients: 0, connects: [], failedLogins: [], peak: stats.open, sessions: 0 }),
    idle: async () => {
      while (stats.open > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Reads exactly `count` bytes from the client as they arrive. Nothing is read ahead of the CONNECT
 * reply in practice: SMTP clients wait for the server's banner, which comes after it.
 */
function byteReader(client: net.Socket): (count: number) => Promise<Buffer | null> {
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | null = null;
  let ended = false;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  };
  client.on('data', onData);
  client.once('close', () => {
    ended = true;
    wake?.();
  });
  return async (count) => {
    while (buffered.length < count) {
      if (ended) return null;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
    const bytes = buffered.subarray(0, count);
    buffered = buffered.subarray(count);
    return bytes;
  };
}

async function serve(
  client: net.Socket,
  options: SocksServerOptions,
  stats: SocksStats,
  sockets: Set<net.Socket>,
): Promise<void> {
  const read = byteReader(client);
  const greeting = await read(2);
  if (greeting === null || greeting[0] !== 5) return void client.destroy();
  const methods = await read(greeting[1] ?? 0);
  if (methods === null) return void client.destroy();
  const wanted = options.users === undefined ? 0x00 : 0x02;
  if (!methods.includes(wanted)) {
    client.end(Buffer.from([5, 0xff]));
    return;
  }
  client.write(Buffer.from([5, wanted]));
  let user: string | null = null;
  if (wanted === 0x02) {
    const head = await read(2);
    const name = head && (await read(head[1] ?? 0));
    const length = name && (await read(1));
    const password = length && (await read(length[0] ?? 0));
    if (head === null || name === null || password === null) return void client.destroy();
    user = name.toString('utf8');
    if (options.users?.[user] !== password.toString('utf8')) {
      stats.failedLogins.push(user);
      client.end(Buffer.from([1, 1]));
      return;
    }
    client.write(Buffer.from([1, 0]));
  }
  const request = await read(4);
  if (request === null || request[0] !== 5) return void client.destroy();
  const destination = await readDestination(read, request[3] ?? 0);
  if (destination === null) return void client.destroy();
  stats.connects.push({ ...destination, user });
  if (request[1] !== 1) {
    client.end(reply(REPLY.commandNotSupported));
    return;
  }
  const upstream = net.connect({ host: destination.host, port: destination.port });
  sockets.add(upstream);
  upstream.once('error', (error: NodeJS.ErrnoException) => {
    client.end(reply(error.code === 'ECONNREFUSED' ? REPLY.refused : REPLY.hostUnreachable));
  });
  upstream.once('connect', () => {
    upstream.removeAllListeners('error');
    stats.sessions += 1;
    stats.open += 1;
    stats.peak = Math.max(stats.peak, stats.open);
    options.onSession?.(1);
    let closed = false;
    const closeBoth = () => {
      if (closed) return;
      closed = true;
      stats.open -= 1;
      options.onSession?.(-1);
      client.destroy();
      upstream.destroy();
      sockets.delete(upstream);
    };
    upstream.on('error', closeBoth);
    upstream.on('close', closeBoth);
    client.on('close', closeBoth);
    client.removeAllListeners('data');
    client.write(reply(REPLY.granted));
    client.pipe(upstream);
    upstream.pipe(client);
  });
}

async function readDestination(
  read: (count: number) => Promise<Buffer | null>,
  addressType: number,
): Promise<Omit<SocksConnect, 'user'> | null> {
  let host: string;
  let kind: SocksConnect['addressType'];
  if (addressType === 1) {
    const bytes = await read(4);
    if (bytes === null) return null;
    host = [...bytes].join('.');
    kind = 'ipv4';
  } else if (addressType === 4) {
    const bytes = await read(16);
    if (bytes === null) return null;
    host = (bytes.toString('hex').match(/.{4}/g) ?? []).join(':');
    kind = 'ipv6';
  } else if (addressType === 3) {
    const length = await read(1);
    const name = length && (await read(length[0] ?? 0));
    if (name === null) return null;
    host = name.toString('latin1');
    kind = 'domain';
  } else return null;
  const port = await read(2);
  if (port === null) return null;
  return { host, addressType: kind, port: port.readUInt16BE(0) };
}

/** A reply with the bound address 0.0.0.0:0 (clients ignore it for CONNECT). */
function reply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
