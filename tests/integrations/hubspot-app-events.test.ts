/**
 * HubSpot's app events at `/hooks/hubspot`, on the API listening on loopback with the emulator as
 * HubSpot and its OAuth app: a signed `contact.creation` reaches the watch of the portal's OAuth
 * integration, the contact is read back, verified on the account's quota and written back; a
 * replay is not charged again. Unsigned, wrongly signed or stale requests are 401 and do nothing.
 * A signed `contact.privacyDeletion` erases the contact's address from that account's lists (found
 * through what its watch kept), audited as the platform's; another account keeps its own copy.
 * The Mailchimp hooks' route is not taken by this one, nor this one by it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { verificationsCharged as charged, keyCall } from '../helpers/listening-api.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, type Portal } from '../hubspot/state.ts';
import { finishedList } from '../privacy/finished-list.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };
const APP = { clientId: 'mailvet-hubspot', clientSecret: 'hubspot-secret-0123456789' };
const PORTAL_ID = 6_000_001;
const ADDRESS = 'u0001@d0001.bench.test';

let emulator: HubSpotEmulator;
let t: TestApp;
let origin: string;
let portal: Portal;
let contactId: string;
let other: { key: string; record: ApiKeyRecord };

before(async () => {
  emulator = await startHubSpotEmulator({ app: APP });
  portal = emulator.addPortal(PORTAL_ID, 'events.hubspot.test').portal;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await testApp({
    plans: PLANS,
    env: {
      MAILVET_PUBLIC_URL: origin,
      MAILVET_HUBSPOT_BASE_URL: emulator.origin,
      MAILVET_HUBSPOT_CLIENT_ID: APP.clientId,
      MAILVET_HUBSPOT_CLIENT_SECRET: APP.clientSecret,
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  other = await t.addKey({ name: 'another customer' });
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, path: string, body?: unknown, key = t.key) =>
  keyCall(origin, key, method, path, body);

const verificationsCharged = () => charged(t);

const hook = () => `${origin}/hooks/hubspot`;
const event = (subscriptionType: string, objectId: string, eventId = 1) => ({
  eventId,
  subscriptionId: 7,
  portalId: PORTAL_ID,
  appId: 42,
  occurredAt: Date.now(),
  subscriptionType,
  attemptNumber: 0,
  objectId: Number(objectId),
  changeSource: 'CRM',
});

test('a signed contact.creation is verified and written back through an OAuth watch; a replay is not charged again', async () => {
  const redirect = `${origin}/integrations/hubspot/callback`;
  const granted = await t.integrations
    .oauthOf('hubspot')!
    .exchange(emulator.grant(PORTAL_ID, redirect), redirect);
  const integration = await t.integrations.connectWithOAuth(
    t.keyRecord.accountId,
    'hubspot',
    granted.accessToken,
    granted.dc,
  );
  const missing = await api('POST', `/integrations/${integration.id}/watches`, { audience_id: '999' });
  assert.equal(missing.status, 422);
  assert.equal(missing.body.errors[0].message, 'No such audience in this HubSpot account');
  const watched = await api('POST', `/integrations/${integration.id}/watches`, { audience_id: 'all' });
  assert.equal(watched.status, 201, JSON.stringify(watched.body));

  const contact = addContact(portal, ADDRESS);
  contactId = contact.id;
  const created = [event('contact.creation', contact.id)];
  const answer = await emulator.sendEvents(hook(), created, APP.clientSecret);
  assert.equal(answer.status, 200, await answer.text());
  await t.watchesIdle();
  assert.equal(contact.properties.mailvet_status, 'PROBABLY_VALID');
  assert.equal(contact.properties.mailvet_category, 'risky');
  assert.match(String(contact.properties.mailvet_checked), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(await verificationsCharged(), 1);

  // The same delivery again (HubSpot retries), and an event naming a contact the portal lacks.
  assert.equal((await emulator.sendEvents(hook(), created, APP.clientSecret)).status, 200);
  const unknown = [event('contact.creation', '99999', 2)];
  assert.equal((await emulator.sendEvents(hook(), unknown, APP.clientSecret)).status, 200);
  await t.watchesIdle();
  assert.equal(await verificationsCharged(), 1, 'a replay and an unknown contact verify nothing');
});

test('unsigned, forged or stale requests are 401 and do nothing', async () => {
  const fresh = addContact(portal, 'u0002@d0002.bench.test');
  const events = [event('contact.creation', fresh.id, 3)];
  const forged = await emulator.sendEvents(hook(), events, 'not-the-secret');
  assert.equal(forged.status, 401);
  assert.equal(((await forged.json()) as { code: string }).code, 'signature_invalid');
  const stale = await emulator.sendEvents(hook(), events, APP.clientSecret, {
    timestamp: Date.now() - 6 * 60_000,
  });
  assert.equal(stale.status, 401);
  const unsigned = await fetch(hook(), { method: 'POST', body: JSON.stringify(events) });
  assert.equal(unsigned.status, 401);
  await t.watchesIdle();
  assert.equal(fresh.properties.mailvet_status, undefined);
  assert.equal(await verificationsCharged(), 1);
});

test('the watches’ hooks and the app’s hook keep to their own paths', async () => {
  assert.equal((await fetch(`${origin}/hooks/mailchimp/${'a'.repeat(43)}`)).status, 404);
  assert.equal((await fetch(`${origin}/hooks/hubspot/${'a'.repeat(43)}`, { method: 'POST' })).status, 404);
  assert.equal((await fetch(hook())).status, 405, 'only POST');
});

test('a signed contact.privacyDeletion erases the address from that account only, audited as the platform’s', async () => {
  const at = new Date();
  const mine = await finishedList(t.store, t.keyRecord, [ADDRESS, 'keep@d0003.bench.test'], at);
  const theirs = await finishedList(t.store, other.record, [ADDRESS], at);
  emulator.privacyDelete(PORTAL_ID, contactId);
  const deletion = [event('contact.privacyDeletion', contactId, 4)];
  const emails = async (listId: string) =>
    (await t.store.lists.resultRows(listId, 0, 10)).map((row) => row.email);

  assert.equal((await emulator.sendEvents(hook(), deletion, 'forged')).status, 401);
  const stale = await emulator.sendEvents(hook(), deletion, APP.clientSecret, {
    timestamp: Date.now() - 400_000,
  });
  assert.equal(stale.status, 401);
  assert.deepEqual(await emails(mine), [ADDRESS, 'keep@d0003.bench.test'], 'nothing erased yet');

  const answer = await emulator.sendEvents(hook(), deletion, APP.clientSecret);
  assert.equal(answer.status, 200, await answer.text());
  assert.deepEqual(await emails(mine), ['[erased]', 'keep@d0003.bench.test']);
  assert.deepEqual(await emails(theirs), [ADDRESS], "another account's copy stays");
  const audit = await api('GET', '/audit?action=address.erased');
  assert.equal(audit.status, 200);
  const [entry] = audit.body.entries;
  assert.equal(entry.actor.type, 'platform');
  assert.match(entry.actor.label, /^HubSpot \(/);
  assert.ok(!JSON.stringify(audit.body).includes(ADDRESS), 'the audit log names no address');
  // A replay erases nothing more (and fails nothing).
  assert.equal((await emulator.sendEvents(hook(), deletion, APP.clientSecret)).status, 200);
  const again = await api('DELETE', `/addresses/${encodeURIComponent(ADDRESS)}`);
  assert.deepEqual(again.body, { erased: { list_rows: 0, feedback: 0, cached: 0 } });
});
