/**
 * The authentication cases every /api/v1 verification route shares (after unkey's common tests):
 * each must answer 401 `unauthorized` with `WWW-Authenticate: Bearer`, before looking at the body.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-keys.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError, assertNoAccountingHeaders, post } from './expect.ts';

/** Registers the shared 401 cases for `url`, sending `validBody`. */
export function authCases(url: string, validBody: unknown): void {
  let t: TestApp;
  before(async () => {
    t = await testApp({ rate: 1000 });
  });
  after(() => t.close());

  const cases: Array<{ name: string; authorization?: () => string; challenge: string }> = [
    { name: 'no Authorization header', challenge: 'Bearer' },
    {
      name: 'another scheme (Basic)',
      authorization: () => `Basic ${btoa('user:pass')}`,
      challenge: 'Bearer',
    },
    { name: 'the key without a scheme', authorization: () => t.key, challenge: 'Bearer' },
    { name: 'Bearer with no token', authorization: () => 'Bearer ', challenge: 'Bearer' },
    { name: 'Bearer with two tokens', authorization: () => `Bearer ${t.key} ${t.key}`, challenge: 'Bearer' },
    {
      name: 'a malformed token',
      authorization: () => 'Bearer not-a-key',
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'a truncated key',
      authorization: () => `Bearer ${t.key.slice(0, -1)}`,
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'a well-formed key nobody issued',
      authorization: () => `Bearer ${generateApiKey().key}`,
      challenge: 'Bearer error="invalid_token"',
    },
  ];

  for (const { name, authorization, challenge } of cases) {
    test(`401 for ${name}`, async () => {
      const headers: Record<string, string> =
        authorization === undefined ? {} : { authorization: authorization() };
      const response = await post(t.app, url, validBody, headers);
      assertError(response, 401, 'unauthorized');
      assert.equal(response.headers['www-authenticate'], challenge);
      assertNoAccountingHeaders(response);
    });
  }

  test('the scheme is case-insensitive (RFC 7235)', async () => {
    const response = await post(t.app, url, validBody, { authorization: `bearer ${t.key}` });
    assert.equal(response.statusCode, 200);
  });

  test('a revoked key is refused from the very next request', async () => {
    const { key, record } = await t.addKey({ rate: 1000 });
    assert.equal((await post(t.app, url, validBody, t.auth(key))).statusCode, 200);
    assert.equal(await t.store.revokeApiKey(record.id), true);
    const response = await post(t.app, url, validBody, t.auth(key));
    assertError(response, 401, 'unauthorized');
    assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"');
  });

  test('auth comes before the body: a bad body without a key is a 401', async () => {
    assertError(await post(t.app, url, '{not json'), 401, 'unauthorized');
    assertError(await post(t.app, url, 'x', { 'content-type': 'text/plain' }), 401, 'unauthorized');
    assertError(await post(t.app, url, { nothing: true }), 401, 'unauthorized');
  });
}
