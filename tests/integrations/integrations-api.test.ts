/**
 * Connecting Mailchimp through the API, against the emulator on loopback: an API key
 * connects and names its account and data centre; a key of the wrong shape or one Mailchimp
 * refuses is 422 on `api_key`; the audiences come with their member counts; another account sees
 * 404; a key revoked in Mailchimp disconnects the integration with a clear message and no retry
 * storm; bursts of 429 and 500 are waited out; disconnecting erases the sealed credential. The
 * SQLite file never holds the key in plain text.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import {
  type EmulatedAccount,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let t: TestApp;
let shop: EmulatedAccount;

before(async () => {
  emulator = await startMailchimpEmulator();
  t = await testApp({
    rate: 1000,
    env: { MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, '') },
  });
  shop = emulator.addAccount({ dc: 'us21', name: 'Corner Shop' });
  const newsletter = emulator.addAudience(shop, { name: 'Newsletter' });
  for (const email of ['a@example.com', 'b@example.com', 'c@example.com'])
    emulator.addMember(newsletter, { email });
  emulator.addAudience(shop, { name: 'Customers' });
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, url: string, payload?: unknown, key = t.key) =>
  t.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers: t.auth(key),
    ...(payload !== undefined && { payload: payload as object }),
  });

async function connect(apiKey: string) {
  return api('POST', '/integrations', { provider: 'mailchimp', api_key: apiKey });
}

describe('connecting with an API key', () => {
  test('connects: the account name and data centre come from Mailchimp; the key is never shown', async () => {
    const response = await connect(shop.apiKey);
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(
      [body.provider, body.account_name, body.dc, body.state, body.message],
      ['mailchimp', 'Corner Shop', 'us21', 'connected', null],
    );
    assert.match(body.id, /^int_/);
    assert.ok(!response.body.includes(shop.apiKey));
    const listed = (await api('GET', '/integrations')).json();
    assert.deepEqual(
      listed.integrations.map((each: { id: string }) => each.id),
      [body.id],
    );
    assert.equal((await api('GET', `/integrations/${body.id}`)).json().account_name, 'Corner Shop');
  });

  test('a key of the wrong shape, or one Mailchimp refuses, is 422 on api_key', async () => {
    for (const apiKey of [
      'nonsense',
      `${'0'.repeat(32)}`,
      `${'0'.repeat(32)}-us21.evil.example`,
      `${'0'.repeat(32)}-`,
    ]) {
      const response = await connect(apiKey);
      assert.equal(response.statusCode, 422, apiKey);
      assert.deepEqual(
        response.json().errors.map((error: { field: string }) => error.field),
        ['api_key'],
      );
    }
    const unknown = await connect(`${'f'.repeat(32)}-us21`);
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.json().errors[0].message, /Mailchimp refused this key/);
    const missing = await api('POST', '/integrations', { provider: 'mailchimp' });
    assert.equal(missing.statusCode, 422);
    const other = await api('POST', '/integrations', { provider: 'constant-contact', api_key: shop.apiKey });
    assert.equal(other.statusCode, 422);
  });

  test('the stored credential is sealed: the SQLite files never hold the key', async () => {
    const files = (await readdir(t.dataDir)).filter((file) => file.startsWith('mailvet.db'));
    assert.ok(files.length > 0);
    const secret = shop.apiKey.split('-')[0]!;
    for (const file of files) {
      const bytes = await readFile(join(t.dataDir, file));
      assert.ok(!bytes.includes(secret), `${file} holds the key`);
    }
  });
});

describe('audiences, other accounts, faults', () => {
  let id: string;
  before(async () => {
    id = (await connect(shop.apiKey)).json().id;
  });

  test('lists the audiences with their member counts', async () => {
    const response = await api('GET', `/integrations/${id}/audiences`);
    assert.equal(response.statusCode, 200, response.body);
    const audiences = response.json().audiences as Array<{
      name: string;
      member_count: number;
      last_run: unknown;
    }>;
    assert.deepEqual(
      audiences.map((audience) => [audience.name, audience.member_count, audience.last_run]).sort(),
      [
        ['Customers', 0, null],
        ['Newsletter', 3, null],
      ],
    );
  });

  test("another account's integration is 404 everywhere", async () => {
    const stranger = await t.addKey({ rate: 1000 });
    for (const [method, url] of [
      ['GET', `/integrations/${id}`],
      ['GET', `/integrations/${id}/audiences`],
      ['DELETE', `/integrations/${id}`],
    ] as const) {
      const response = await api(method, url, undefined, stranger.key);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.json().code, 'not_found');
    }
    assert.deepEqual((await api('GET', '/integrations', undefined, stranger.key)).json().integrations, []);
    assert.equal((await api('GET', `/integrations/${id}`)).statusCode, 200, 'still there for its owner');
  });

  test('bursts of 429 and 500 are waited out, and never more than 10 requests are in flight', async () => {
    emulator.resetStats(shop);
    emulator.injectFaults(shop, { status: 429, count: 2, retryAfterSeconds: 1 });
    emulator.injectFaults(shop, { status: 500, count: 1 });
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => api('GET', `/integrations/${id}/audiences`)),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      Array(12).fill(200),
    );
    assert.ok(Date.now() - started >= 1000, 'Retry-After was honoured');
    assert.ok(emulator.stats(shop).maxInFlight <= 10, `peak ${emulator.stats(shop).maxInFlight}`);
  });

  test('a key revoked in Mailchimp disconnects the integration with a message; it is not asked again', async () => {
    const own = emulator.addAccount({ dc: 'us5', name: 'Revoked Co' });
    const revokedId = (await connect(own.apiKey)).json().id;
    emulator.revokeKey(own);
    const first = await api('GET', `/integrations/${revokedId}/audiences`);
    assert.equal(first.statusCode, 409);
    assert.equal(first.json().code, 'integration_disconnected');
    assert.match(first.json().message, /Mailchimp refused the credentials/);
    const shown = (await api('GET', `/integrations/${revokedId}`)).json();
    assert.equal(shown.state, 'disconnected');
    assert.match(shown.message, /Connect the account again/);
    emulator.resetStats(own);
    assert.equal((await api('GET', `/integrations/${revokedId}/audiences`)).statusCode, 409);
    assert.equal(emulator.stats(own).requests, 0, 'a disconnected integration does not call Mailchimp');
  });

  test('disconnecting erases it: gone from the API and from the store', async () => {
    const response = await api('DELETE', `/integrations/${id}`);
    assert.equal(response.statusCode, 204);
    assert.equal((await api('GET', `/integrations/${id}`)).statusCode, 404);
    assert.equal(await t.store.integrations.findIntegration(t.keyRecord.accountId, id), null);
    assert.equal((await api('DELETE', `/integrations/${id}`)).statusCode, 404);
  });
});
