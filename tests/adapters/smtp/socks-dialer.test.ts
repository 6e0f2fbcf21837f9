/**
 * The SOCKS5 dialer's bounds and failures, against real sockets: the connect timeout and the
 * probe's signal bound the proxy handshake, a proxy that breaks the protocol or refuses the CONNECT
 * is the proxy's fault (logged, never with the password), and its warn lines do not flood the log.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SocksDialer } from '../../../src/adapters/smtp/socks-dialer.ts';
import { type SocksServer, startSocksServer } from '../../mailworld/socks-server.ts';
import { startTinySmtp, type TinySmtp } from './tiny-smtp.ts';

/** A TCP server on 127.0.0.1 that runs `onClient` per connection and notes when each closes. */
async function rawServer(onClient: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  const closed: Array<() => void> = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    // Read whatever comes, so the client's close is seen even by a server that never answers.
    socket.resume();
    socket.on('close', () => {
      sockets.delete(socket);
      for (const notify of closed.splice(0)) notify();
    });
    onClient(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connected: () => sockets.size,
    /** Resolves when the next client socket closes. */
    nextClose: () => new Promise<void>((resolve) => closed.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type RawServer = Awaited<ReturnType<typeof rawServer>>;

let silent: RawServer;
let garbage: RawServer;
let forbidding: RawServer;
let authed: SocksServer;
let smtp: TinySmtp;

before(async () => {
  silent = await rawServer(() => {});
  garbage = await rawServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  // Takes no authentication, then answers every CONNECT with "not allowed by ruleset" (RFC 1928 §6).
  forbidding = await rawServer((socket) => {
    let stage = 0;
    socket.on('data', () => {
      socket.write(stage === 0 ? Buffer.from([5, 0]) : Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
      stage += 1;
    });
  });
  authed = await startSocksServer({ users: { mailvet: 'right-password' } });
  smtp = await startTinySmtp(0);
});
after(async () => {
  await Promise.all([silent.close(), garbage.close(), forbidding.close(), authed.close(), smtp.close()]);
});

const target = (timeoutMs = 2000, signal?: AbortSignal) => ({
  ip: '127.0.0.1',
  port: smtp.port,
  timeoutMs,
  signal,
});

describe('SocksDialer', () => {
  it('connects through the proxy to the address; the stream is the MX’s', async () => {
    const dialer = new SocksDialer(
      { host: '127.0.0.1', port: authed.port, user: 'mailvet', password: 'right-password' },
      () => {},
    );
    const dialed = await dialer.dial(target());
    assert.ok(dialed.ok);
    const banner = await new Promise<string>((resolve) =>
      dialed.socket.once('data', (chunk) => resolve(String(chunk))),
    );
    dialed.socket.destroy();
    assert.match(banner, /^220 tiny\.test/);
    assert.deepEqual(authed.stats.connects.at(-1), {
      host: '127.0.0.1',
      addressType: 'ipv4',
      port: smtp.port,
      user: 'mailvet',
    });
    assert.equal(dialer.id, `socks5://mailvet@127.0.0.1:${authed.port}`);
  });

  it('a proxy that never answers the handshake: a timeout within the connect timeout, and the socket is closed', async () => {
    const warnings: string[] = [];
    const dialer = new SocksDialer({ host: '127.0.0.1', port: silent.port }, (line) => warnings.push(line));
    const closed = silent.nextClose();
    const dialed = await dialer.dial(target(300));
    assert.ok(!dialed.ok);
    assert.equal(dialed.failure, 'timeout');
    assert.notEqual(dialed.egressFault, true);
    await closed;
    assert.equal(silent.connected(), 0);
    // The handshake was cut short by us: nothing to tell about the proxy.
    assert.deepEqual(warnings, []);
  });

  it('the probe’s signal ends the handshake at once and closes the socket', async () => {
    const dialer = new SocksDialer({ host: '127.0.0.1', port: silent.port }, () => {});
    const controller = new AbortController();
    const closed = silent.nextClose();
    const pending = dialer.dial(target(60_000, controller.signal));
    while (silent.connected() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const dialed = await pending;
    assert.deepEqual(dialed, { ok: false, failure: 'timeout', detail: 'cancelled' });
    await closed;
  });

  it('something that is not a SOCKS5 proxy: connect_failed, the proxy’s fault, logged', async () => {
    const warnings: string[] = [];
    const dialer = new SocksDialer({ host: '127.0.0.1', port: garbage.port }, (line) => warnings.push(line));
    const dialed = await dialer.dial(target());
    assert.ok(!dialed.ok);
    assert.deepEqual([dialed.failure, dialed.egressFault], ['connect_failed', true]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`^SMTP proxy socks5://127\\.0\\.0\\.1:${garbage.port}: `));
  });

  it('a CONNECT the proxy’s rules forbid: the proxy’s fault, "proxy refused connection"', async () => {
    const warnings: string[] = [];
    const dialer = new SocksDialer({ host: '127.0.0.1', port: forbidding.port }, (line) =>
      warnings.push(line),
    );
    const dialed = await dialer.dial(target());
    assert.ok(!dialed.ok);
    assert.deepEqual([dialed.failure, dialed.egressFault], ['connect_failed', true]);
    assert.match(warnings[0] ?? '', /proxy refused connection to port \d+ \(NotAllowed\)/);
  });

  it('the same failure again within a minute is not logged again; the password never is', async () => {
    const warnings: string[] = [];
    const dialer = new SocksDialer(
      { host: '127.0.0.1', port: authed.port, user: 'mailvet', password: 'wrong-one-42' },
      (line) => warnings.push(line),
    );
    for (let i = 0; i < 3; i++) {
      const dialed = await dialer.dial(target());
      assert.ok(!dialed.ok);
      assert.deepEqual([dialed.failure, dialed.egressFault], ['connect_failed', true]);
      assert.ok(!dialed.detail.includes('wrong-one-42'));
    }
    assert.deepEqual(warnings, [
      `SMTP proxy socks5://mailvet@127.0.0.1:${authed.port}: SOCKS5 authentication failed; probes through it fail with connect_failed`,
    ]);
  });

  it('is never given a host name to pass on', async () => {
    const dialer = new SocksDialer({ host: '127.0.0.1', port: authed.port }, () => {});
    const before = authed.stats.clients;
    const dialed = await dialer.dial({ ip: 'mx.example.com', port: 25, timeoutMs: 1000 });
    assert.ok(!dialed.ok);
    assert.equal(authed.stats.clients, before);
  });
});
