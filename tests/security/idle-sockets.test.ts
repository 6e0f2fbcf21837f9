/**
 * Attack: thousands of idle sockets, no key, no request. The server used to keep every one and
 * then reset new connections for everybody. Now one client address holds at most its share of
 * sockets (the rest are closed at once), a socket that sends no request head is closed after the
 * headers timeout, and other clients are served meanwhile.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { healthzWhile, timedHealthz } from './responsiveness.ts';

const PER_CLIENT = 50;
const IDLE_SOCKETS = 300;
const HEADERS_TIMEOUT_MS = 1500;
const HEALTHZ_BOUND_MS = 200;

let lists: ListServer;
let port: number;

before(async () => {
  lists = await startListServer({
    MAILVET_SMTP_PROBE: 'false',
    MAILVET_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
    MAILVET_MAX_CONNECTIONS: '1000',
    MAILVET_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
  });
  port = Number(new URL(lists.url).port);
});
after(() => lists?.close());

/** Opens an idle socket from `localAddress`; resolves once connected, with when it closed. */
function idleSocket(localAddress: string): Promise<{ socket: net.Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    const closed = new Promise<number>((done) => socket.once('close', () => done(performance.now())));
    socket.on('error', () => {});
    // Read what the server sends (its 408 at the headers timeout), or the socket never sees its end.
    socket.resume();
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

function healthz(localAddress: string) {
  return timedHealthz(lists.url, localAddress);
}

test('idle sockets from one address are capped and closed; another address is served at once', async () => {
  const opened = performance.now();
  const idle = await Promise.all(Array.from({ length: IDLE_SOCKETS }, () => idleSocket('127.0.0.1')));

  // Over the per-address share, sockets are closed straight away (well before the headers timeout).
  const early = await Promise.all(
    idle.map(({ closed }) =>
      Promise.race([
        closed,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), HEADERS_TIMEOUT_MS / 3)),
      ]),
    ),
  );
  const closedEarly = early.filter((at) => at !== null).length;
  assert.ok(closedEarly >= IDLE_SOCKETS - PER_CLIENT, `${closedEarly} of ${IDLE_SOCKETS} closed at once`);

  // Another address is served, at once, while the share of this one is held.
  const other = await healthzWhile(lists.url, Promise.resolve(), { localAddress: '127.0.0.2' });
  assert.ok(
    other.medianMs < HEALTHZ_BOUND_MS,
    `median /healthz ${other.medianMs.toFixed(0)} ms over ${other.samples.length} samples`,
  );
  // The same address is refused while its share is held.
  await assert.rejects(healthz('127.0.0.1'));

  // The ones kept are closed by the server once the headers timeout passes (checked every second).
  const closings = await Promise.all(idle.map(({ closed }) => closed));
  const last = Math.max(...closings) - opened;
  assert.ok(last < HEADERS_TIMEOUT_MS + 3000, `last idle socket closed after ${last.toFixed(0)} ms`);
  const again = await healthz('127.0.0.1');
  assert.equal(again.status, 200);
});
