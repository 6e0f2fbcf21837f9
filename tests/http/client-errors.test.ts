/**
 * Requests refused before any route runs still get the documented error body and a request id:
 * a malformed URL (Fastify's frameworkErrors) and malformed HTTP (Node's clientError).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError, post } from './expect.ts';

let t: TestApp;
let port: number;
before(async () => {
  t = await testApp({ rate: 1000 });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

/** Writes raw bytes and returns everything the server sends until it closes. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
  });
}

function parseRaw(raw: string): {
  status: number;
  headers: Map<string, string>;
  body: Record<string, unknown>;
} {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Map(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: JSON.parse(body) as Record<string, unknown>,
  };
}

test('a malformed URL is a 400 bad_request with the documented body', async () => {
  const response = await post(t.app, '/api/v1/%E0%A4%A', { email: 'a@multi-mx.test' }, t.auth());
  assertError(response, 400, 'bad_request');
});

for (const [name, bytes] of [
  ['garbage instead of HTTP', 'HELLO THERE\r\n\r\n'],
  ['an invalid method token', 'P@ST /api/v1/verify HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a bad header line', 'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
  ['headers over the size limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ['a bad Content-Length', 'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
]) {
  test(`malformed HTTP (${name}): 400 bad_request, documented body, request id`, async () => {
    const { status, headers, body } = parseRaw(await rawExchange(bytes!));
    assert.equal(status, 400);
    assert.equal(headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(body).sort(), ['code', 'errors', 'message', 'request_id']);
    assert.equal(body.code, 'bad_request');
    assert.deepEqual(body.errors, []);
    assert.equal(body.request_id, headers.get('x-request-id'));
  });
}
