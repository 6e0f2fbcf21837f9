/**
 * The webhook sender against real HTTP servers on 127.0.0.1: what each kind of answer comes to
 * (delivered, retried, given up), the bounds (timeout, response size), redirects, the SSRF guard
 * and its pinned connection, and a signature the receiver can check.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import {
  type DeliveryOutcome,
  type ResolvedAddress,
  sendWebhook,
  WEBHOOK_USER_AGENT,
  type WebhookRequest,
} from '../../../src/adapters/webhooks/http-sender.ts';
import { verifyWebhook, webhookSecretFor } from '../../../src/webhooks/signature.ts';

const HANG_GUARD = { timeout: 20_000 }; // a hang guard, not a timing assertion

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

/** A receiver on 127.0.0.1 that records every request and answers with `handler`. */
async function receiver(handler: Handler): Promise<{ url: string; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/mailvet?x=1`, port, received };
}

const answer =
  (status: number, text = ''): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'Content-Type': 'text/plain' }).end(text);
  };

const secret = webhookSecretFor(Buffer.alloc(32, 3), 'lst_00112233445566778899');
const body = JSON.stringify({ id: 'whd_1', event: 'list.completed', data: { list: { id: 'lst_1' } } });

function send(url: string, more: Partial<WebhookRequest> = {}): Promise<DeliveryOutcome> {
  return sendWebhook({
    url,
    body,
    deliveryId: 'whd_1',
    event: 'list.completed',
    secret,
    timeoutMs: 5_000,
    allowPrivate: true,
    ...more,
  });
}

describe('sendWebhook: answers', () => {
  it('2xx is delivered; the receiver gets the body, the headers and a signature it can check', async () => {
    const hook = await receiver(answer(204));
    const outcome = await send(hook.url, { now: () => new Date('2026-03-14T09:26:53Z') });
    assert.deepEqual(outcome, { ok: true, status: 204 });
    assert.equal(hook.received.length, 1);
    const got = hook.received[0]!;
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hooks/mailvet?x=1');
    assert.equal(got.body, body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(got.headers['user-agent'], WEBHOOK_USER_AGENT);
    assert.equal(got.headers['mailvet-delivery'], 'whd_1');
    assert.equal(got.headers['mailvet-event'], 'list.completed');
    assert.equal(got.headers.authorization, undefined);
    const signature = got.headers['mailvet-signature'];
    assert.match(String(signature), /^t=1773480413,v1=[0-9a-f]{64}$/);
    assert.equal(verifyWebhook(secret, got.body, signature, { nowSeconds: 1773480413 }), true);
    assert.equal(verifyWebhook(secret, `${got.body} `, signature, { nowSeconds: 1773480413 }), false);
  });

  it('any 2xx is delivered, whatever the body', async () => {
    for (const status of [200, 201, 202, 299]) {
      const hook = await receiver(answer(status, 'thanks'));
      assert.deepEqual(await send(hook.url), { ok: true, status });
    }
  });

  it('5xx, 408 and 429 are retried, with the status and an excerpt of the answer', async () => {
    for (const status of [500, 502, 503, 599, 408, 429]) {
      const hook = await receiver(answer(status, `busy\r\nnow ${status}`));
      const outcome = await send(hook.url);
      assert.equal(outcome.ok, false);
      assert.ok(!outcome.ok);
      assert.equal(outcome.retry, true, String(status));
      assert.equal(outcome.status, status);
      assert.equal(outcome.reason, `HTTP ${status}: busy now ${status}`);
    }
  });

  it('other 4xx are given up', async () => {
    for (const status of [400, 401, 403, 404, 405, 410, 413, 422]) {
      const hook = await receiver(answer(status));
      const outcome = await send(hook.url);
      assert.deepEqual(outcome, { ok: false, retry: false, status, reason: `HTTP ${status}` });
    }
  });

  it('a redirect is not followed, and given up', async () => {
    const target = await receiver(answer(204));
    const hook = await receiver((_request, response) => {
      response.writeHead(302, { Location: target.url }).end();
    });
    const outcome = await send(hook.url);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.equal(outcome.retry, false);
    assert.equal(outcome.status, 302);
    assert.match(outcome.reason, /redirects are not followed/);
    assert.equal(hook.received.length, 1);
    assert.equal(target.received.length, 0);
  });
});

describe('sendWebhook: bounds and network failures', () => {
  it('a receiver that never answers is a retried timeout, within the bound', HANG_GUARD, async () => {
    const hook = await receiver(() => {}); // reads the request, never answers
    const outcome = await send(hook.url, { timeoutMs: 300 });
    assert.deepEqual(outcome, { ok: false, retry: true, reason: 'timeout: no answer within 300 ms' });
    assert.equal(hook.received.length, 1);
  });

  it('a 2xx whose body never ends is still delivered when the bound is reached', HANG_GUARD, async () => {
    const hook = await receiver((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('partial');
    });
    assert.deepEqual(await send(hook.url, { timeoutMs: 300 }), { ok: true, status: 200 });
  });

  it('a DNS answer that never comes is a timeout too', HANG_GUARD, async () => {
    const outcome = await send('http://slow.mailvet.test/hook', {
      timeoutMs: 200,
      resolve: () => new Promise(() => {}),
    });
    assert.deepEqual(outcome, { ok: false, retry: true, reason: 'timeout: no answer within 200 ms' });
  });

  it('connection refused is retried', HANG_GUARD, async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await send(`http://127.0.0.1:${port}/hook`);
    assert.deepEqual(outcome, { ok: false, retry: true, reason: 'request failed: ECONNREFUSED' });
  });

  it('a name that does not resolve is retried', async () => {
    const outcome = await send('http://missing.mailvet.test/hook', {
      resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    });
    assert.deepEqual(outcome, {
      ok: false,
      retry: true,
      reason: 'cannot resolve missing.mailvet.test: ENOTFOUND',
    });
  });

  it(
    'a huge response body is read no further than the cap: the connection is closed',
    HANG_GUARD,
    async () => {
      const total = 256 * 1024 * 1024;
      let written = 0;
      let hungUp: () => void = () => {};
      const closed = new Promise<void>((resolve) => {
        hungUp = resolve;
      });
      const hook = await receiver((_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': total });
        const chunk = Buffer.alloc(64 * 1024, 120);
        response.on('close', hungUp);
        const pump = (): void => {
          while (written < total && !response.destroyed) {
            written += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      const outcome = await send(hook.url, { timeoutMs: 15_000 });
      assert.deepEqual(outcome, { ok: true, status: 200 });
      await closed;
      // The client hung up long before the body's end: what was written is mostly in socket buffers.
      assert.ok(written < total / 4, `the server wrote ${written} bytes`);
    },
  );
});

describe('sendWebhook: where it may connect', () => {
  it('refuses loopback and private receivers unless allowed, and sends them nothing', async () => {
    const hook = await receiver(answer(204));
    const outcome = await send(hook.url, { allowPrivate: false });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.equal(outcome.retry, false);
    assert.match(outcome.reason, /^refused: 127\.0\.0\.1 has no public address \(127\.0\.0\.1: loopback\)$/);
    assert.equal(hook.received.length, 0);

    const named = await send(`http://localhost:${hook.port}/`, { allowPrivate: false });
    assert.ok(!named.ok && !named.retry && named.reason.startsWith('refused: localhost'));
    assert.equal(hook.received.length, 0);
  });

  it('classifies every resolved address with the project address guard', async () => {
    const resolveTo =
      (...addresses: string[]) =>
      async (): Promise<ResolvedAddress[]> =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const cases: Array<[string[], RegExp]> = [
      [['10.1.2.3'], /10\.1\.2\.3: private/],
      [['169.254.169.254'], /169\.254\.169\.254: link_local/],
      [['100.64.0.1'], /shared/],
      [['192.0.2.7'], /documentation/],
      [['0.0.0.0'], /unspecified/],
      [['::1'], /::1: loopback/],
      [['fd00::1'], /unique_local/],
      [['::ffff:127.0.0.1'], /ipv4_mapped:loopback/],
      [['10.0.0.1', '192.168.1.1'], /10\.0\.0\.1: private, 192\.168\.1\.1: private/],
    ];
    for (const [addresses, why] of cases) {
      const outcome = await send('http://hooks.mailvet.test/', {
        allowPrivate: false,
        resolve: resolveTo(...addresses),
      });
      assert.ok(!outcome.ok && !outcome.retry, addresses.join());
      assert.match(outcome.reason, why);
    }
    for (const literal of [
      'http://[::1]:9/',
      'http://0x7f.1:9/',
      'http://2130706433:9/',
      'http://127.1:9/',
    ]) {
      const outcome = await send(literal, { allowPrivate: false });
      assert.ok(!outcome.ok && !outcome.retry, literal);
      assert.match(outcome.reason, /loopback/, literal);
    }
  });

  it('connects to exactly the address it checked, once resolved (no second lookup)', async () => {
    const hook = await receiver(answer(204));
    let lookups = 0;
    const outcome = await send(`http://hooks.mailvet.test:${hook.port}/in`, {
      resolve: async () => {
        lookups += 1;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    assert.deepEqual(outcome, { ok: true, status: 204 });
    assert.equal(lookups, 1);
    assert.equal(hook.received[0]?.headers.host, `hooks.mailvet.test:${hook.port}`);
  });

  it('checks TLS certificates against the URL host name over the pinned connection', HANG_GUARD, async () => {
    const tls = new URL('../../fixtures/tls/', import.meta.url);
    const server = https.createServer(
      {
        key: readFileSync(new URL('mailworld-key.pem', tls)),
        cert: readFileSync(new URL('mailworld-cert.pem', tls)),
      },
      (_request, response) => response.writeHead(204).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const { port } = server.address() as AddressInfo;
    const outcome = await send(`https://mx.tls.test:${port}/`, {
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    // The throwaway certificate is self-signed: a real client must not trust it.
    assert.ok(!outcome.ok && outcome.retry);
    assert.match(outcome.reason, /SELF_SIGNED|CERT/);
  });

  it('gives up on URLs it cannot or must not send to, without throwing', async () => {
    for (const url of ['not a url', '/relative', 'ftp://example.com/', 'file:///etc/passwd']) {
      const outcome = await send(url);
      assert.ok(!outcome.ok && !outcome.retry, url);
    }
    const hook = await receiver(answer(204));
    const withCredentials = hook.url.replace('http://', 'http://user:pass@');
    const outcome = await send(withCredentials);
    assert.ok(!outcome.ok && !outcome.retry);
    assert.match(outcome.reason, /user name or password/);
    assert.equal(hook.received.length, 0);
  });

  it('a malformed secret or header value is a value, not an exception', async () => {
    const hook = await receiver(answer(204));
    const badSecret = await send(hook.url, { secret: 'whsec_oops' });
    assert.ok(!badSecret.ok && !badSecret.retry && badSecret.reason.startsWith('cannot sign'));
    const badId = await send(hook.url, { deliveryId: 'whd_1\r\nX-Injected: yes' });
    assert.ok(!badId.ok && !badId.retry && badId.reason.startsWith('cannot send'));
    assert.equal(hook.received.length, 0);
  });
});
