/**
 * The API at its edges, through the real app: a method a path does not take is 405
 * `method_not_allowed` with `Allow` naming the ones it does (people coming from other verifiers try
 * `GET /api/v1/verify?email=`), while unknown paths stay 404; a body over an endpoint's limit is
 * 413 `payload_too_large` naming that limit (the JSON routes' 1 MB, the hooks' 64 KB, the list
 * upload's 512 MB, refused from its Content-Length before any of it is read); an address value
 * that is not a string says so.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError, BULK, post, VERIFY } from './expect.ts';
import { rawExchange, requestBytes } from './hostile-raw-http.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ quota: 1000, rate: 1000 });
});
after(() => t.close());

describe('405 method_not_allowed', () => {
  it('answers GET /api/v1/verify?email= with Allow: POST, and charges nothing', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${VERIFY}?email=jane@multi-mx.test`,
      headers: t.auth(),
    });
    const body = assertError(response, 405, 'method_not_allowed');
    assert.equal(response.headers.allow, 'POST');
    assert.match(String(body.message), /^\/api\/v1\/verify does not take GET: use POST$/);
    assert.equal((await t.usage()).verifications, 0);
  });

  it('names every method a path takes, whatever the route', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', BULK, 'POST'],
      ['HEAD', VERIFY, 'POST'],
      ['PUT', VERIFY, 'POST'],
      ['DELETE', '/api/v1/domains/check', 'POST'],
      ['PATCH', '/api/v1/lists', 'GET, HEAD, POST'],
      ['PUT', '/api/v1/lists/lst_0123456789', 'GET, HEAD, DELETE'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', `/hooks/mailchimp/${'A'.repeat(43)}`, 'GET, HEAD, POST'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await t.app.inject({ method: method as 'GET', url, headers: t.auth() });
      assert.equal(response.statusCode, 405, `${method} ${url}: ${response.body}`);
      assert.equal(response.headers.allow, allow, `${method} ${url}`);
      if (method !== 'HEAD') assert.equal(response.json().code, 'method_not_allowed');
    }
  });

  it('leaves unknown paths at 404, whatever the method', async () => {
    const cases: Array<[string, string]> = [
      ['GET', '/api/v1/nothing'],
      ['POST', '/api/v1/nothing'],
      ['POST', '/api/v2/verify'],
      ['POST', '/api/v1/verify/x'],
      // Client routes of the dashboard: GET answers the app, nothing else exists there.
      ['POST', '/lists/lst_0123456789'],
      ['DELETE', '/'],
    ];
    for (const [method, url] of cases) {
      const response = await t.app.inject({ method: method as 'GET', url, headers: t.auth() });
      assertError(response, 404, 'not_found');
      assert.equal(response.headers.allow, undefined, `${method} ${url}`);
    }
  });
});

describe('413 payload_too_large', () => {
  it('refuses a JSON body over 1 MB on the JSON routes', async () => {
    const padding = 'x'.repeat(1024 * 1024);
    for (const [url, body] of [
      [VERIFY, { email: 'a@multi-mx.test', padding }],
      [BULK, { emails: ['a@multi-mx.test'], padding }],
      ['/api/v1/domains/check', { domain: 'multi-mx.test', padding }],
    ] as const) {
      const response = await post(t.app, url, body, t.auth());
      const error = assertError(response, 413, 'payload_too_large');
      assert.match(String(error.message), /larger than the 1 MB this endpoint accepts/, url);
    }
    assert.equal((await t.usage()).verifications, 0);
  });

  it("refuses a hook body over the hooks' 64 KB, form-encoded or JSON", async () => {
    const url = `/hooks/mailchimp/${'A'.repeat(43)}`;
    for (const [contentType, payload] of [
      ['application/x-www-form-urlencoded', `type=subscribe&data=${'x'.repeat(70 * 1024)}`],
      ['application/json', JSON.stringify({ type: 'subscribe', data: 'x'.repeat(70 * 1024) })],
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': contentType! },
        payload,
      });
      const error = assertError(response, 413, 'payload_too_large');
      assert.match(String(error.message), /64 KB/, contentType);
    }
  });

  it('refuses a list upload announced over 512 MB at once, before reading it', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const head = requestBytes(
      'POST',
      '/api/v1/lists',
      {
        ...t.auth(),
        'Content-Type': 'text/csv',
        'Content-Length': String(600 * 1024 * 1024),
      },
      Buffer.from('email\na@multi-mx.test\n'),
    );
    // The rest of the body never comes: only the refusal, not the upload's 30 s idle timeout, can
    // answer within the exchange's bound.
    const exchange = await rawExchange(port, [head], { deadlineMs: 10_000 });
    assert.ok(exchange.response, `no answer (closed: ${exchange.closed}, timed out: ${exchange.timedOut})`);
    assert.equal(exchange.response.status, 413);
    const body = JSON.parse(exchange.response.body);
    assert.equal(body.code, 'payload_too_large');
    assert.match(body.message, /512 MB/);
    const lists = await t.app.inject({ method: 'GET', url: '/api/v1/lists', headers: t.auth() });
    assert.deepEqual(lists.json().lists, []);
  });
});

describe('422 for an address value that is not a string', () => {
  it('says the field must be a string', async () => {
    for (const email of [42, null, true, ['a@multi-mx.test']]) {
      const response = await post(t.app, VERIFY, { email }, t.auth());
      assertError(response, 422, 'validation_failed', [{ field: 'email', message: 'Must be a string' }]);
    }
    const bulk = await post(t.app, BULK, { emails: ['a@multi-mx.test', 7] }, t.auth());
    assertError(bulk, 422, 'validation_failed', [{ field: 'emails[1]', message: 'Must be a string' }]);
    // A string that is not an address still reads as one.
    const empty = await post(t.app, VERIFY, { email: '' }, t.auth());
    assertError(empty, 422, 'validation_failed', [{ field: 'email', message: 'Invalid email format' }]);
  });
});
