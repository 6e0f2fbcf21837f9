/**
 * A watch on a private-app HubSpot connection, on the real server (its worker's periodic task
 * polls every second) over the mail world and the emulator: a contact created in the watched list
 * after the watch began is found by the search API, verified and written back; one created before,
 * and one outside the list, are left alone. Then a run of the list keeps each contact's id beside
 * its address, so a signed `contact.privacyDeletion` (the contact already gone from HubSpot) erases
 * that address from the run's list.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freePort } from '../helpers/free-port.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

const APP = { clientId: 'mailvet-hubspot', clientSecret: 'hubspot-secret-0123456789' };
const PORTAL_ID = 7_000_001;

let emulator: HubSpotEmulator;
let server: ListServer;

before(async () => {
  emulator = await startHubSpotEmulator({ app: APP });
  const port = await freePort();
  server = await startListServer({
    PORT: String(port),
    MAILVET_PUBLIC_URL: `http://127.0.0.1:${port}`,
    MAILVET_HUBSPOT_BASE_URL: emulator.origin,
    MAILVET_HUBSPOT_CLIENT_ID: APP.clientId,
    MAILVET_HUBSPOT_CLIENT_SECRET: APP.clientSecret,
    MAILVET_HUBSPOT_POLL_SECONDS: '1',
    MAILVET_RUN_POLL_MS: '100',
  });
});
after(async () => {
  await server?.close();
  await emulator?.close();
});

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `hang guard: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a polled watch verifies contacts created in its list; a run’s contacts can be erased by id', async () => {
  const key = await server.key({ quota: 1000, name: 'hubspot-polling' });
  const api = (method: string, path: string, body?: unknown) => server.call(key, method, path, body);
  const { portal, token } = emulator.addPortal(PORTAL_ID);
  const early = addContact(portal, 'user1@accept.test');
  const list = addList(portal, 'Signups', [early.id]);
  const connected = await api('POST', '/integrations', { provider: 'hubspot', api_key: token });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  const integrationId = connected.body.id as string;
  const watched = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: list.listId });
  assert.equal(watched.status, 201, JSON.stringify(watched.body));

  const searchesBefore = emulator.count('/crm/v3/objects/contacts/search', 'POST');
  await new Promise((resolve) => setTimeout(resolve, 10));
  const joined = addContact(portal, 'user2@accept.test');
  list.members.add(joined.id);
  const outsider = addContact(portal, 'user3@accept.test');
  await until('the new list member written back', () => joined.properties.mailvet_status);
  assert.equal(joined.properties.mailvet_status, 'VALID');
  assert.equal(joined.properties.mailvet_category, 'valid');
  assert.ok(emulator.count('/crm/v3/objects/contacts/search', 'POST') > searchesBefore, 'found by search');
  // A few more looks: the others stay untouched.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(early.properties.mailvet_status, undefined, 'created before the watch');
  assert.equal(outsider.properties.mailvet_status, undefined, 'not in the watched list');
  assert.equal(joined.writes, 1, 'verified and written once, however many looks');

  const started = await api('POST', `/integrations/${integrationId}/runs`, {
    audience_id: list.listId,
    write_back: { fields: true, tags: true, segments: false, unsubscribe_invalid: false },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const run = await until('the run completed', async () => {
    const seen = (await api('GET', `/integrations/${integrationId}/runs/${started.body.id}`)).body;
    return ['completed', 'failed'].includes(seen.state) ? seen : undefined;
  });
  assert.equal(run.state, 'completed', JSON.stringify(run));
  const emails = async () =>
    (
      (await (await server.api(key, `/lists/${run.list_id}/results?format=json`)).json()) as Array<{
        email: string;
      }>
    )
      .map((row) => row.email)
      .sort();
  assert.deepEqual(await emails(), ['user1@accept.test', 'user2@accept.test']);

  emulator.privacyDelete(PORTAL_ID, early.id);
  const deletion = [
    {
      eventId: 9,
      subscriptionId: 3,
      portalId: PORTAL_ID,
      appId: 42,
      occurredAt: Date.now(),
      subscriptionType: 'contact.privacyDeletion',
      attemptNumber: 0,
      objectId: Number(early.id),
      changeSource: 'GDPR',
    },
  ];
  const answer = await emulator.sendEvents(`${server.url}/hooks/hubspot`, deletion, APP.clientSecret);
  assert.equal(answer.status, 200, await answer.text());
  assert.deepEqual(await emails(), ['[erased]', 'user2@accept.test']);
});
