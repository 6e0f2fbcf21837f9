/**
 * POST /api/v1/verify, error paths: every 400, 422 and 429 with its exact body, the accounting
 * headers on authenticated errors, and the order of checks (auth → rate limit → body format →
 * validation → quota → work).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../../../helpers/app.ts';
import { assertAccountingHeaders, assertError, nextMonthIso, post, VERIFY } from '../../expect.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ quota: 1000, rate: 1000 });
});
after(() => t.close());

const notObjects: Array<[string, string]> = [
  ['an array', '[{"email":"a@multi-mx.test"}]'],
  ['a string', '"a@multi-mx.test"'],
  ['a number', '42'],
  ['null', 'null'],
  ['true', 'true'],
];
for (const [name, raw] of notObjects) {
  test(`400 bad_request for JSON that is ${name}`, async () => {
    const response = await post(t.app, VERIFY, raw, t.auth());
    assertError(response, 400, 'bad_request');
    assertAccountingHeaders(response);
  });
}

const notJson: Array<[string, string]> = [
  ['invalid JSON', '{"email": "a@multi-mx.test"'],
  ['truncated JSON', '{"email'],
  ['white space only', '   '],
  ['two JSON values', '{} {}'],
  ['JSON with a trailing comma', '{"email":"a@b.test",}'],
];
for (const [name, raw] of notJson) {
  test(`400 bad_request for ${name}`, async () => {
    assertError(await post(t.app, VERIFY, raw, t.auth()), 400, 'bad_request');
  });
}

test('400 bad_request for an empty body sent as JSON', async () => {
  assertError(await post(t.app, VERIFY, '', t.auth()), 400, 'bad_request');
});

test('400 bad_request for no body and no Content-Type', async () => {
  const response = await t.app.inject({ method: 'POST', url: VERIFY, headers: t.auth() });
  assertError(response, 400, 'bad_request');
});

for (const contentType of [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
]) {
  test(`400 (not 415) bad_request for Content-Type ${contentType}`, async () => {
    const response = await post(t.app, VERIFY, '{"email":"a@multi-mx.test"}', {
      ...t.auth(),
      'content-type': contentType,
    });
    assertError(response, 400, 'bad_request');
  });
}

test('413 payload_too_large for a body over 1 MB', async () => {
  const big = JSON.stringify({ email: 'a@multi-mx.test', padding: 'x'.repeat(1024 * 1024) });
  const response = await post(t.app, VERIFY, big, t.auth());
  const body = assertError(response, 413, 'payload_too_large');
  assert.match(String(body.message), /1 MB/);
});

test('413 payload_too_large for a body over 1 MB over a real socket, and the server goes on', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${VERIFY}`;
  const headers = { ...t.auth(), 'content-type': 'application/json' };
  const big = await fetch(url, {
    method: 'POST',
    headers,
    body: `{"email":"${'a'.repeat(2 * 1024 * 1024)}"}`,
  });
  assert.equal(big.status, 413);
  const body = (await big.json()) as Record<string, unknown>;
  assert.equal(body.code, 'payload_too_large');
  assert.equal(body.request_id, big.headers.get('x-request-id'));
  const next = await fetch(url, { method: 'POST', headers, body: '{"email":"a@multi-mx.test"}' });
  assert.equal(next.status, 200);
});

const invalidEmails: Array<[string, unknown, string]> = [
  ['missing', {}, 'Required'],
  ['missing (other properties only)', { emails: ['a@multi-mx.test'] }, 'Required'],
  ['a number', { email: 42 }, 'Must be a string'],
  ['null', { email: null }, 'Must be a string'],
  ['a boolean', { email: true }, 'Must be a string'],
  ['an array', { email: ['a@multi-mx.test'] }, 'Must be a string'],
  ['an object', { email: { address: 'a@multi-mx.test' } }, 'Must be a string'],
  ['empty', { email: '' }, 'Invalid email format'],
  ['all white space', { email: ' \t\n\u00a0 ' }, 'Invalid email format'],
  ['over 1024 characters', { email: `${'a'.repeat(1011)}@multi-mx.test` }, 'Invalid email format'],
];
for (const [name, body, message] of invalidEmails) {
  test(`422 validation_failed when email is ${name}`, async () => {
    const response = await post(t.app, VERIFY, body, t.auth());
    assertError(response, 422, 'validation_failed', [{ field: 'email', message }]);
    assertAccountingHeaders(response);
  });
}

test('a number is not coerced to a string', async () => {
  const response = await post(t.app, VERIFY, '{"email": 12345}', t.auth());
  assertError(response, 422, 'validation_failed', [{ field: 'email' }]);
});

test('404 not_found for an unknown route, 405 for a method the route does not take, with the same body', async () => {
  assertError(await t.app.inject({ method: 'GET', url: '/api/v1/nothing' }), 404, 'not_found');
  const get = await t.app.inject({ method: 'GET', url: VERIFY });
  assertError(get, 405, 'method_not_allowed');
  assert.equal(get.headers.allow, 'POST');
  assertError(await t.app.inject({ method: 'DELETE', url: '/' }), 404, 'not_found');
});

test('a refused request charges nothing', async () => {
  const before = await t.usage();
  await post(t.app, VERIFY, { email: '' }, t.auth());
  await post(t.app, VERIFY, '[1]', t.auth());
  assert.deepEqual(await t.usage(), before);
});

test('429 quota_exceeded once the monthly quota is used up, Retry-After until the month turns', async () => {
  const { key } = await t.addKey({ quota: 2, rate: 1000 });
  for (let i = 0; i < 2; i++)
    assert.equal((await post(t.app, VERIFY, { email: `q${i}@multi-mx.test` }, t.auth(key))).statusCode, 200);
  const response = await post(t.app, VERIFY, { email: 'q3@multi-mx.test' }, t.auth(key));
  assertError(response, 429, 'quota_exceeded');
  const retryAfter = Number(response.headers['retry-after']);
  const untilReset = (Date.parse(nextMonthIso()) - Date.now()) / 1000;
  assert.ok(Math.abs(retryAfter - untilReset) < 5, `Retry-After ${retryAfter} ≈ ${untilReset}`);
  const headers = assertAccountingHeaders(response);
  assert.equal(headers.quotaLimit, 2);
  assert.equal(headers.quotaRemaining, 0);
});

test('order: a quota-exhausted key with an invalid body gets 422, a non-object body 400', async () => {
  const { key } = await t.addKey({ quota: 0, rate: 1000 });
  assertError(await post(t.app, VERIFY, { email: 7 }, t.auth(key)), 422, 'validation_failed', [
    { field: 'email' },
  ]);
  assertError(await post(t.app, VERIFY, '[]', t.auth(key)), 400, 'bad_request');
  assertError(await post(t.app, VERIFY, { email: 'a@multi-mx.test' }, t.auth(key)), 429, 'quota_exceeded');
});

test('order: with the rate exhausted, a bad body gets 429 rate_limited', async () => {
  const { key } = await t.addKey({ rate: 1 });
  // The burst is twice the rate: two requests empty the bucket.
  for (let i = 0; i < 2; i++)
    assert.equal((await post(t.app, VERIFY, '{not json', t.auth(key))).statusCode, 400);
  const response = await post(t.app, VERIFY, '{not json', t.auth(key));
  assertError(response, 429, 'rate_limited');
  assert.ok(Number(response.headers['retry-after']) >= 1);
  assertError(await post(t.app, VERIFY, { email: 5 }, t.auth(key)), 429, 'rate_limited');
});
