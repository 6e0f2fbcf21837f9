/**
 * The pre-campaign check of a HubSpot marketing email on the real server and the emulator: the
 * email's recipients are its included lists' contacts less its excluded lists' and the opted-out,
 * counted by `mailvet_status`; unverified ones are verified and written back; with `exclude`, a
 * MANUAL list "Mailvet excluded: <email name>" of the contacts to leave out is made and added to
 * the email's excluded lists. A published email is a 409.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

let emulator: HubSpotEmulator;
let server: ListServer;

before(async () => {
  emulator = await startHubSpotEmulator();
  server = await startListServer({ MAILVET_HUBSPOT_BASE_URL: emulator.origin, MAILVET_RUN_POLL_MS: '100' });
});
after(async () => {
  await server?.close();
  await emulator?.close();
});

test('a marketing email is checked, and its invalid recipients left out through an excluded list', async () => {
  const key = await server.key({ quota: 1000 });
  const { portal, token } = emulator.addPortal(6_000_001);
  const contact = (email: string, status?: string, optedOut = false) => {
    const made = addContact(portal, email, { optedOut });
    if (status !== undefined) made.properties.mailvet_status = status;
    return made.id;
  };
  const newsletter = addList(portal, 'Newsletter', [
    contact('ann@accept.test', 'VALID'),
    contact('dan@accept.test', 'INVALID'),
    contact('user1@accept.test'),
    contact('nobody1@accept.test'),
    contact('gone@accept.test', 'VALID', true),
    contact('left@accept.test', 'VALID'),
  ]);
  const alreadyOut = addList(portal, 'Do not mail', [[...portal.contacts.values()].at(-1)!.id]);
  portal.emails.set('77', {
    id: '77',
    name: 'Autumn',
    state: 'DRAFT',
    to: { contactIlsLists: { include: [newsletter.listId], exclude: [alreadyOut.listId] } },
  });
  portal.emails.set('78', {
    id: '78',
    name: 'Sent one',
    state: 'PUBLISHED',
    to: { contactIlsLists: { include: [newsletter.listId], exclude: [] } },
  });
  const api = (method: string, path: string, body?: unknown) => server.call(key, method, path, body);
  const connected = await api('POST', '/integrations', { provider: 'hubspot', api_key: token });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  const id = connected.body.id as string;

  const published = await api('POST', `/integrations/${id}/campaign-checks`, { campaign_id: '78' });
  assert.equal(published.status, 409, JSON.stringify(published.body));

  const checked = await api('POST', `/integrations/${id}/campaign-checks`, {
    campaign_id: '77',
    verify_unverified: true,
    exclude: 'invalid',
  });
  assert.equal(checked.status, 200, JSON.stringify(checked.body));
  assert.equal(checked.body.recipients, 4, 'less the excluded list and the opted-out contact');
  assert.deepEqual(checked.body.by_category, { valid: 2, risky: 0, invalid: 2, unverified: 0 });
  const byEmail = new Map([...portal.contacts.values()].map((each) => [each.properties.email, each]));
  assert.equal(byEmail.get('user1@accept.test')!.properties.mailvet_status, 'VALID');
  assert.equal(byEmail.get('nobody1@accept.test')!.properties.mailvet_status, 'INVALID');
  assert.equal(byEmail.get('gone@accept.test')!.writes, 0, 'the opted-out contact untouched');

  const excluded = [...portal.lists.values()].find((each) => each.name === 'Mailvet excluded: Autumn')!;
  assert.equal(excluded.processingType, 'MANUAL');
  assert.deepEqual(
    [...excluded.members].map((member) => portal.contacts.get(member)!.properties.email).sort(),
    ['dan@accept.test', 'nobody1@accept.test'],
  );
  assert.deepEqual(portal.emails.get('77')!.to.contactIlsLists.exclude, [alreadyOut.listId, excluded.listId]);
  assert.equal(checked.body.excluded.members, 2);
  assert.equal(emulator.requests.filter((r) => r.method === 'DELETE').length, 0);
});
