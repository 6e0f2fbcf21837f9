/**
 * Attack and its mirror image: the list upload against the request deadline. The whole-request
 * timeout (30 s) used to cut off the documented maximum upload (408 after 71-76 s on loopback),
 * while a body that stops arriving must still be dropped. Now the upload route has no deadline as
 * a whole, only a bound on each silence; every other route keeps its deadline. The documented
 * maximum itself is largest-upload.test.ts.
 *
 * The server runs with a short request deadline (1.5 s) and upload idle timeout (1 s), so what
 * takes minutes in production takes seconds here.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';

const REQUEST_TIMEOUT_MS = 1500;
const UPLOAD_IDLE_MS = 1000;

let lists: ListServer;
let key: string;
let port: number;

before(async () => {
  lists = await startListServer(
    { MAILVET_SMTP_PROBE: 'false', MAILVET_UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_MS) },
    {},
    { requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
  key = await lists.key();
  port = Number(new URL(lists.url).port);
});
after(() => lists?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw HTTP exchange: the head, then each body part after `gapMs`; resolves with the response. */
function rawRequest(
  path: string,
  headers: Record<string, string>,
  parts: string[],
  gapMs: number,
  target: { port: number; key: string } = { port, key },
): Promise<{ status: number; body: string; closedMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port: target.port });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => {
      received += data;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const status = Number(received.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
      resolve({
        status,
        body: received.slice(received.indexOf('\r\n\r\n') + 4),
        closedMs: performance.now() - started,
      });
    });
    socket.once('connect', async () => {
      const head = Object.entries({
        host: 'x',
        authorization: `Bearer ${target.key}`,
        connection: 'close',
        ...headers,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      for (const part of parts) {
        await sleep(gapMs);
        if (socket.destroyed) return;
        socket.write(part);
      }
    });
    setTimeout(() => reject(new Error('no end within 20 s')), 20_000).unref();
  });
}

async function storedLists(): Promise<unknown[]> {
  return ((await (await lists.api(key, '/lists')).json()) as { lists: unknown[] }).lists;
}

test('an upload that keeps arriving is accepted, however long it takes in all', async () => {
  const domain = lists.world.domains['accept-known'];
  const rows = Array.from({ length: 12 }, (_, i) => `user${i}@${domain}\n`);
  const body = `email\n${rows.join('')}`;
  // 13 parts, 250 ms apart: over 3 s in all, twice the request deadline; never 1 s of silence.
  const parts = ['email\n', ...rows];
  const {
    status,
    body: answer,
    closedMs,
  } = await rawRequest(
    '/api/v1/lists',
    { 'content-type': 'text/csv', 'content-length': String(Buffer.byteLength(body)) },
    parts,
    250,
  );
  assert.equal(status, 202, answer);
  assert.ok(closedMs > REQUEST_TIMEOUT_MS, 'it really outlasted the request deadline');
  const created = JSON.parse(answer) as { id: string; counts: { total: number } };
  assert.equal(created.counts.total, 12);
  await lists.waitFor(key, created.id, (list) => list.state === 'completed');
});

test('an upload that stops arriving is refused with 408 request_timeout, and nothing is kept', async () => {
  const before = (await storedLists()).length;
  const { status, body } = await rawRequest(
    '/api/v1/lists',
    { 'content-type': 'text/csv', 'content-length': '100000' },
    ['email\na@b.example\n'],
    0,
  );
  assert.equal(status, 408);
  const error = JSON.parse(body) as { code: string; message: string };
  assert.equal(error.code, 'request_timeout');
  assert.match(error.message, /nothing arrived for 1 s/);
  assert.equal((await storedLists()).length, before, 'no half-stored list');
});

test('a multipart upload that stops arriving is refused with 408 too', async () => {
  const boundary = 'b0undary';
  const start = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="l.csv"\r\nContent-Type: text/csv\r\n\r\nemail\na@b.example\n`;
  const { status, body } = await rawRequest(
    '/api/v1/lists',
    { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': '100000' },
    [start],
    0,
  );
  assert.equal(status, 408);
  assert.equal((JSON.parse(body) as { code: string }).code, 'request_timeout');
});

test('an upload trickled for longer than MAILVET_UPLOAD_TIMEOUT_MS in all is refused with 408', async () => {
  const strict = await startListServer(
    {
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_UPLOAD_IDLE_TIMEOUT_MS: '1000',
      MAILVET_UPLOAD_TIMEOUT_MS: '2000',
    },
    {},
    { requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
  try {
    const strictKey = await strict.key();
    const rows = Array.from({ length: 40 }, (_, i) => `t${i}@b.example\n`);
    const body = `email\n${rows.join('')}`;
    const {
      status,
      body: answer,
      closedMs,
    } = await rawRequest(
      '/api/v1/lists',
      { 'content-type': 'text/csv', 'content-length': String(Buffer.byteLength(body)) },
      ['email\n', ...rows],
      250,
      { port: Number(new URL(strict.url).port), key: strictKey },
    );
    assert.equal(status, 408, answer);
    assert.match((JSON.parse(answer) as { message: string }).message, /took longer than 2 s in all/);
    assert.ok(closedMs < 40 * 250, 'cut off before the trickle ended');
    const index = (await (await strict.api(strictKey, '/lists')).json()) as { lists: unknown[] };
    assert.deepEqual(index.lists, []);
  } finally {
    await strict.close();
  }
});

test('every other route keeps its whole-request deadline: a trickled /verify body is 408', async () => {
  const body = JSON.stringify({ email: 'a@b.example' });
  const parts = body.match(/.{1,3}/g) ?? [];
  // Never silent for long, but the whole body takes 13 x 200 ms: past the deadline.
  const {
    status,
    body: answer,
    closedMs,
  } = await rawRequest(
    '/api/v1/verify',
    { 'content-type': 'application/json', 'content-length': String(body.length) },
    parts,
    200,
  );
  assert.equal(status, 408, answer);
  assert.equal((JSON.parse(answer) as { code: string }).code, 'request_timeout');
  assert.ok(closedMs < parts.length * 200, 'cut off before the body was all sent');
});
