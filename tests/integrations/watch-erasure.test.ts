/**
 * A contact deleted in Mailchimp is erased from the account's data, end to end: a watch registers
 * its webhook for unsubscribe events too, the emulator posts `unsubscribe` with
 * `data[action]=delete` to /hooks/mailchimp/{token} when a contact is archived or deleted for good,
 * and the address leaves the account's lists, feedback and result cache, recorded as done by the
 * platform. The event is only a hint: a forged deletion of a contact Mailchimp still has, of an
 * address the integration never met (Mailchimp answers 404 for it too), or a plain unsubscribe,
 * erases nothing; another account's copy of the address is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { keyCall } from '../helpers/listening-api.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';
import { basicRequest, md5 } from '../mailchimp/test-client.ts';
import { finishedList } from '../privacy/finished-list.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

const GONE = 'Gone.Forever@multi-mx.test';
const ARCHIVED = 'archived@multi-mx.test';
const STAYS = 'stays@multi-mx.test';
const LEFT = 'unsubscribed@multi-mx.test';
/** In the account's lists, never in the audience. */
const NEVER = 'never.member@multi-mx.test';

let emulator: MailchimpEmulator;
let t: TestApp;
let origin: string;
let shop: EmulatedAccount;
let audience: EmulatedAudience;
let hookUrl: string;
let integrationId: string;
let other: { key: string; record: ApiKeyRecord };
let mine: string;
let theirs: string;

before(async () => {
  emulator = await startMailchimpEmulator();
  shop = emulator.addAccount({ name: 'Deleting Shop' });
  audience = emulator.addAudience(shop, { name: 'Customers' });
  emulator.addMember(audience, { email: LEFT });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await testApp({
    plans: PLANS,
    resultTtlSeconds: 3600,
    env: {
      MAILVET_PUBLIC_URL: origin,
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  other = await t.addKey({ name: 'another account', rate: 1000 });
  assert.notEqual(other.record.accountId, t.keyRecord.accountId);
  integrationId = (await api('POST', '/integrations', { provider: 'mailchimp', api_key: shop.apiKey })).body
    .id;
  const watch = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: audience.id });
  assert.equal(watch.status, 201, JSON.stringify(watch.body));
  const [webhook] = emulator.webhooks(audience);
  assert.ok(webhook);
  assert.equal(webhook.events.subscribe, true);
  assert.equal(webhook.events.unsubscribe, true, 'deletions come as unsubscribe events');
  hookUrl = webhook.url;
  // They sign up after the watch began: it verifies them, so the integration has met them.
  for (const email of [GONE, ARCHIVED, STAYS]) await emulator.fireSubscribe(audience, email);
  await emulator.idle();
  await t.watchesIdle();
  // Both accounts hold the addresses: a list each, feedback, and the result cache.
  const emails = [GONE, ARCHIVED, STAYS, LEFT, NEVER];
  mine = await finishedList(t.store, t.keyRecord, emails, new Date());
  theirs = await finishedList(t.store, other.record, emails, new Date());
  for (const key of [t.key, other.key]) {
    const recorded = await api('POST', '/feedback', { email: GONE, event: 'hard_bounce' }, key);
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  }
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, path: string, body?: unknown, key = t.key) =>
  keyCall(origin, key, method, path, body);

/** The list's rows as `[email, has a result]`. */
async function rowsOf(listId: string, key = t.key): Promise<Array<[string, boolean]>> {
  const rows = (await api('GET', `/lists/${listId}/results?format=json`, undefined, key)).body as Array<{
    email: string;
    result: unknown;
  }>;
  return rows.map((row) => [row.email, row.result !== null]);
}

async function erasures(key = t.key) {
  return (await api('GET', '/audit?action=address.erased&limit=100', undefined, key)).body.entries as Array<{
    actor: { type: string; id: string; label: string };
    ip: string | null;
    target: { type: string; id: string };
    details: Record<string, number>;
  }>;
}

/** A delete event as Mailchimp posts it, for a contact it may still have. */
function deleteEvent(email: string, action = 'delete'): URLSearchParams {
  return new URLSearchParams({
    type: 'unsubscribe',
    fired_at: '2030-01-10 12:00:00',
    'data[action]': action,
    'data[reason]': 'manual',
    'data[list_id]': audience.id,
    'data[email]': email,
  });
}

test('forged deletions and plain unsubscribes erase nothing', async () => {
  // The contact is still a subscribed member: Mailchimp's own record decides.
  assert.equal((await fetch(hookUrl, { method: 'POST', body: deleteEvent(STAYS) })).status, 200);
  // Mailchimp has no such contact, but the integration never met it: not this audience's deletion.
  assert.equal((await fetch(hookUrl, { method: 'POST', body: deleteEvent(NEVER) })).status, 200);
  // A forged token is no watch's.
  const forged = `${origin}/hooks/mailchimp/${'B'.repeat(43)}`;
  assert.equal((await fetch(forged, { method: 'POST', body: deleteEvent(GONE) })).status, 404);
  // An unsubscribe is not a deletion: the contact stays in Mailchimp, and in Mailvet.
  await emulator.fireUnsubscribe(audience, LEFT);
  await t.watchesIdle();
  const delivered = emulator.webhookDeliveries().filter((delivery) => delivery.type === 'unsubscribe');
  assert.equal(delivered.length, 1);
  assert.equal(delivered[0]!.status, 200);
  assert.match(delivered[0]!.body, /data%5Baction%5D=unsub/);

  assert.deepEqual(await rowsOf(mine), [
    [GONE, true],
    [ARCHIVED, true],
    [STAYS, true],
    [LEFT, true],
    [NEVER, true],
  ]);
  assert.deepEqual(await erasures(), []);
  assert.deepEqual(emulator.destructiveCalls(shop), [], 'Mailvet deletes nothing in Mailchimp');
});

test("a contact deleted for good is erased from the account's lists, feedback and cache, recorded as the platform's", async () => {
  assert.equal((await api('POST', '/verify', { email: GONE })).status, 200, 'cached now');
  await emulator.fireDelete(audience, GONE, { permanent: true });
  await t.watchesIdle();
  assert.equal(emulator.member(audience, GONE), undefined);

  assert.deepEqual(await rowsOf(mine), [
    ['[erased]', false],
    [ARCHIVED, true],
    [STAYS, true],
    [LEFT, true],
    [NEVER, true],
  ]);
  const exported = (await api('GET', '/account/export')).body;
  assert.deepEqual(exported.feedback, [], 'its feedback is gone');
  const [entry, ...more] = await erasures();
  assert.deepEqual(more, []);
  assert.deepEqual(entry?.actor, {
    type: 'platform',
    id: integrationId,
    label: 'Mailchimp (Deleting Shop)',
  });
  assert.equal(entry?.ip, null);
  assert.match(entry!.target.id, /^addr_[0-9a-f]{64}$/);
  assert.deepEqual(entry?.details, { list_rows: 1, feedback: 1, cached: 1 });
  assert.doesNotMatch(JSON.stringify(entry), /gone/i, 'the address is never in the log');

  // Another account's copy of the same address is untouched.
  assert.deepEqual((await rowsOf(theirs, other.key))[0], [GONE, true]);
  assert.equal((await api('GET', '/account/export', undefined, other.key)).body.feedback.length, 1);
  assert.deepEqual(await erasures(other.key), []);
});

test('a contact archived (deleted in the API, or by an admin) is erased too', async () => {
  // Through Mailchimp's own API, as another tool of the same Mailchimp account would: the DELETE
  // archives the contact and fires the event from the `api` source.
  const deleted = await basicRequest(
    emulator.baseUrlTemplate.replace('{dc}', shop.dc),
    shop.apiKey,
    `/lists/${audience.id}/members/${md5(ARCHIVED)}`,
    { method: 'DELETE' },
  );
  assert.equal(deleted.status, 204);
  await emulator.idle();
  await t.watchesIdle();
  assert.equal(emulator.member(audience, ARCHIVED)?.status, 'archived');
  assert.deepEqual(await rowsOf(mine), [
    ['[erased]', false],
    ['[erased]', false],
    [STAYS, true],
    [LEFT, true],
    [NEVER, true],
  ]);
  assert.equal((await erasures()).length, 2);
  assert.deepEqual((await rowsOf(theirs, other.key))[1], [ARCHIVED, true]);
});
