/**
 * POST /api/v1/verify, happy paths: the documented result shape exactly, the accounting headers,
 * request ids, charging and refunds (real SQLite store, real verifier over the DNS world).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type TestApp, testApp, worldVerifier } from '../../../helpers/app.ts';
import { assertAccountingHeaders, post, VERIFY } from '../../expect.ts';

const RESULT_KEYS = ['checks', 'duration_ms', 'email', 'evidence', 'reason', 'score', 'status'];
const CHECK_KEYS = [
  'catch_all',
  'catch_all_confidence',
  'disposable',
  'domain_exists',
  'free_provider',
  'mailbox_exists',
  'mx_records',
  'role_based',
  'smtp',
  'suggestions',
  'syntax',
];

let t: TestApp;
before(async () => {
  t = await testApp({ quota: 100, rate: 50 });
});
after(() => t.close());

test('200 with every documented field, equal to what the pipeline says', async () => {
  const response = await post(t.app, VERIFY, { email: 'Jane.Doe@multi-mx.test' }, t.auth());
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), RESULT_KEYS);
  assert.deepEqual(Object.keys(body.checks).sort(), CHECK_KEYS);
  // Serialization through the response schema drops nothing and changes nothing.
  const direct = await worldVerifier(t.dns).verify('Jane.Doe@multi-mx.test');
  assert.deepEqual({ ...body, duration_ms: 0 }, { ...direct, duration_ms: 0 });
  assert.equal(body.email, 'Jane.Doe@multi-mx.test');
  assert.equal(body.status, 'PROBABLY_VALID');
  assert.equal(body.reason, 'probe_skipped');
  assert.equal(body.checks.smtp, 'skipped');
  assert.equal(body.checks.catch_all, null);
  assert.equal(body.checks.mx_records, true);
  assert.deepEqual(body.checks.suggestions, []);
  assert.ok(Number.isInteger(body.duration_ms) && body.duration_ms >= 0);
});

test('the accounting headers count the charge', async () => {
  const usedBefore = (await t.usage()).verifications;
  const response = await post(t.app, VERIFY, { email: 'count@multi-mx.test' }, t.auth());
  assert.equal(response.statusCode, 200);
  const headers = assertAccountingHeaders(response);
  assert.equal(headers.rateLimit, 50);
  assert.ok(headers.rateRemaining < 100, 'a token was taken from the burst of 100');
  assert.ok(headers.rateReset >= 1);
  assert.equal(headers.quotaLimit, 100);
  assert.equal(headers.quotaRemaining, 100 - usedBefore - 1);
  assert.equal((await t.usage()).verifications, usedBefore + 1);
  assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('email is echoed as submitted, trimmed; unknown properties are ignored', async () => {
  const response = await post(
    t.app,
    VERIFY,
    { email: '  Jane@Multi-MX.test \t', extra: [1, 2], nested: { a: 1 } },
    t.auth(),
  );
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().email, 'Jane@Multi-MX.test');
});

test('a syntactically invalid address is a 200 INVALID_SYNTAX, and it is charged', async () => {
  const usedBefore = (await t.usage()).verifications;
  const response = await post(t.app, VERIFY, { email: 'not an address' }, t.auth());
  assert.equal(response.statusCode, 200);
  const body = response.json();
  assert.equal(body.status, 'INVALID_SYNTAX');
  assert.equal(body.reason, 'syntax_invalid');
  assert.equal(body.score, 0);
  assert.equal(body.checks.syntax, false);
  assert.equal((await t.usage()).verifications, usedBefore + 1);
});

test('an address of exactly 1024 characters is verified', async () => {
  const response = await post(t.app, VERIFY, { email: `${'a'.repeat(1010)}@multi-mx.test` }, t.auth());
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().status, 'INVALID_SYNTAX');
});

test('a dns_error result is given back: usage unchanged, quota header unchanged', async () => {
  const usedBefore = (await t.usage()).verifications;
  const response = await post(t.app, VERIFY, { email: 'jane@servfail.test' }, t.auth());
  assert.equal(response.statusCode, 200);
  const body = response.json();
  assert.equal(body.reason, 'dns_error');
  assert.equal(body.status, 'PROBABLY_VALID');
  assert.equal((await t.usage()).verifications, usedBefore);
  assert.equal(assertAccountingHeaders(response).quotaRemaining, 100 - usedBefore);
});

test('Content-Type with a charset parameter is JSON', async () => {
  const response = await post(
    t.app,
    VERIFY,
    { email: 'a@multi-mx.test' },
    {
      ...t.auth(),
      'content-type': 'application/json; charset=utf-8',
    },
  );
  assert.equal(response.statusCode, 200);
});

test('a sane incoming X-Request-Id is kept, anything else replaced', async () => {
  const kept = await post(
    t.app,
    VERIFY,
    { email: 'a@multi-mx.test' },
    { ...t.auth(), 'x-request-id': 'lb-1234.abc_DEF' },
  );
  assert.equal(kept.headers['x-request-id'], 'lb-1234.abc_DEF');
  for (const insane of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
    const replaced = await post(
      t.app,
      VERIFY,
      { email: 'a@multi-mx.test' },
      { ...t.auth(), 'x-request-id': insane },
    );
    assert.notEqual(replaced.headers['x-request-id'], insane);
    assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  }
});

test('over a real socket: 200, the result and every header', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}${VERIFY}`, {
    method: 'POST',
    headers: { ...t.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'socket@multi-mx.test' }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), RESULT_KEYS);
  assert.equal(body.email, 'socket@multi-mx.test');
  assert.ok(response.headers.get('x-request-id'));
  assertAccountingHeaders(response);
});
