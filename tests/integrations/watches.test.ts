/**
 * Watches end to end: the API listens on loopback, the emulator registers the hook
 * after checking it with a GET, and a new subscriber is verified (on the account's quota) and
 * written back within seconds. A forged token is a 404; an event about an address that is no
 * subscribed member does nothing; a replayed event is not verified or charged again; removing the
 * watch, or disconnecting, removes Mailchimp's webhook.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { verificationsCharged as charged, keyCall } from '../helpers/listening-api.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

let emulator: MailchimpEmulator;
let t: TestApp;
let origin: string;
let shop: EmulatedAccount;
let audience: EmulatedAudience;
let integrationId: string;

before(async () => {
  emulator = await startMailchimpEmulator();
  shop = emulator.addAccount({ name: 'Watched Shop' });
  audience = emulator.addAudience(shop, { name: 'Signups' });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await testApp({
    plans: PLANS,
    env: {
      MAILVET_PUBLIC_URL: origin,
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  integrationId = (await api('POST', '/integrations', { provider: 'mailchimp', api_key: shop.apiKey })).body
    .id;
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, path: string, body?: unknown, key = t.key) =>
  keyCall(origin, key, method, path, body);

const verificationsCharged = () => charged(t);

async function until<T>(what: string, check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a watch registers a checked webhook; a new subscriber is verified and written back within seconds', async () => {
  const unknown = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: 'nope' });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.errors[0].field, 'audience_id');
  assert.deepEqual(
    (await api('GET', `/integrations/${integrationId}/watches`)).body.watches,
    [],
    'nothing left of it',
  );
  const created = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: audience.id });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.audience_id, audience.id);
  const [webhook] = emulator.webhooks(audience);
  assert.ok(webhook, 'the webhook is registered');
  assert.match(webhook.url, new RegExp(`^${origin}/hooks/mailchimp/[A-Za-z0-9_-]{43}$`));
  assert.equal(webhook.events.subscribe, true);
  assert.equal((await fetch(webhook.url)).status, 200, 'the GET check');
  assert.equal(
    (await api('GET', `/integrations/${integrationId}/watches`)).body.watches[0].id,
    created.body.id,
  );

  const before = await verificationsCharged();
  await emulator.fireSubscribe(audience, 'u0001@d0001.bench.test');
  const member = await until('the write-back', () => {
    const found = emulator.member(audience, 'u0001@d0001.bench.test');
    return found?.tags.includes('mailvet-risky') ? found : undefined;
  });
  assert.equal(member.mergeFields.MV_STATUS, 'PROBABLY_VALID');
  assert.equal(typeof member.mergeFields.MV_SCORE, 'number');
  assert.match(String(member.mergeFields.MV_CHECKED), /^\d{4}-\d{2}-\d{2}$/);
  await t.watchesIdle();
  assert.equal(await verificationsCharged(), before + 1, 'charged to the account once');

  // The same event again (a replay): nothing verified or charged again.
  const replay = new URLSearchParams({
    type: 'subscribe',
    'data[list_id]': audience.id,
    'data[email]': 'u0001@d0001.bench.test',
  });
  const replayed = await fetch(webhook.url, { method: 'POST', body: replay });
  assert.equal(replayed.status, 200);
  await t.watchesIdle();
  assert.equal(await verificationsCharged(), before + 1);
});

test('a subscriber not verified for want of quota is verified on a later event once quota is back, not a day later', async () => {
  const [webhook] = emulator.webhooks(audience);
  const used = await verificationsCharged();
  await t.store.updateAccount(t.keyRecord.accountId, { monthlyQuota: used });
  const email = 'u0002@d0004.bench.test';
  await emulator.fireSubscribe(audience, email);
  await t.watchesIdle();
  assert.equal(emulator.member(audience, email)?.mergeFields.MV_STATUS, undefined, 'no quota: not written');
  assert.equal(await verificationsCharged(), used);

  await t.store.updateAccount(t.keyRecord.accountId, { monthlyQuota: used + 10 });
  const replay = new URLSearchParams({
    type: 'subscribe',
    'data[list_id]': audience.id,
    'data[email]': email,
  });
  assert.equal((await fetch(webhook!.url, { method: 'POST', body: replay })).status, 200);
  await t.watchesIdle();
  assert.equal(emulator.member(audience, email)?.mergeFields.MV_STATUS, 'PROBABLY_VALID');
  assert.equal(await verificationsCharged(), used + 1);
});

test('a burst of events is worked on a few at a time, not all at once', async () => {
  const [webhook] = emulator.webhooks(audience);
  emulator.resetStats(shop);
  emulator.latencyMs = 20;
  try {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(webhook!.url, {
          method: 'POST',
          body: new URLSearchParams({
            type: 'subscribe',
            'data[list_id]': audience.id,
            'data[email]': `burst${i}@d0005.bench.test`,
          }),
        }),
      ),
    );
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]));
    await t.watchesIdle();
    const stats = emulator.stats(shop);
    assert.equal(stats.requests, 40, 'each event read back once');
    assert.ok(stats.maxInFlight <= 4, `at most 4 at once, saw ${stats.maxInFlight}`);
  } finally {
    emulator.latencyMs = 0;
  }
});

test('forged events: an unknown token is 404; an address that is no subscribed member does nothing', async () => {
  const [webhook] = emulator.webhooks(audience);
  const forged = `${origin}/hooks/mailchimp/${'A'.repeat(43)}`;
  const event = (email: string) =>
    new URLSearchParams({ type: 'subscribe', 'data[list_id]': audience.id, 'data[email]': email });
  assert.equal((await fetch(forged, { method: 'POST', body: event('x@d0002.bench.test') })).status, 404);
  assert.equal((await fetch(forged)).status, 404);
  assert.equal((await fetch(`${origin}/hooks/mailchimp/short`)).status, 404);
  const before = await verificationsCharged();
  emulator.resetStats(shop);
  assert.equal(
    (await fetch(webhook!.url, { method: 'POST', body: event('stranger@d0003.bench.test') })).status,
    200,
  );
  await t.watchesIdle();
  assert.equal(await verificationsCharged(), before, 'no member: nothing verified');
  assert.equal(emulator.member(audience, 'stranger@d0003.bench.test'), undefined);
  assert.deepEqual(emulator.destructiveCalls(shop), []);
});

test("another account cannot see or remove the watch; removing it, or disconnecting, removes Mailchimp's webhook", async () => {
  const watchId = (await api('GET', `/integrations/${integrationId}/watches`)).body.watches[0].id;
  const stranger = await t.addKey({ rate: 1000 });
  assert.equal(
    (await api('GET', `/integrations/${integrationId}/watches`, undefined, stranger.key)).status,
    404,
  );
  assert.equal(
    (await api('DELETE', `/integrations/${integrationId}/watches/${watchId}`, undefined, stranger.key))
      .status,
    404,
  );
  assert.equal((await api('DELETE', `/integrations/${integrationId}/watches/${watchId}`)).status, 204);
  assert.deepEqual(emulator.webhooks(audience), []);

  const again = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: audience.id });
  assert.equal(again.status, 201);
  assert.equal(emulator.webhooks(audience).length, 1);
  assert.equal((await api('DELETE', `/integrations/${integrationId}`)).status, 204);
  assert.deepEqual(emulator.webhooks(audience), [], 'disconnecting removes the webhook first');
});
