/**
 * A whole HubSpot portal, end to end on the real server (store, queue, in-process worker, SMTP
 * probe on) over the mail world and the HubSpot emulator: 5,000 contacts across the world's
 * behaviours plus opted-out ones, validated with write-back while HubSpot answers bursts of 429
 * and 500. Every subscribed contact's four properties are checked against its own result;
 * opted-out contacts are untouched; nothing is deleted; the quota is charged exactly the unique
 * subscribed addresses; the portal's 10-second window and 5 in flight are never exceeded. A second
 * account sees nothing of the first's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { categoryOf } from '../../src/integrations/categories.ts';
import { monthOf } from '../../src/usage/months.ts';
import type { Status } from '../../src/verification/report.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

let emulator: HubSpotEmulator;
let server: ListServer;
let scratch: string;

before(async () => {
  emulator = await startHubSpotEmulator({ perTenSeconds: 100 });
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-hubspot-'));
  await writeFile(join(scratch, 'deny.txt'), 'slowbanner.test\n');
  server = await startListServer({
    MAILVET_HUBSPOT_BASE_URL: emulator.origin,
    MAILVET_RUN_POLL_MS: '100',
    MAILVET_DISPOSABLE_DENY_FILE: join(scratch, 'deny.txt'),
  });
});
after(async () => {
  await server?.close();
  await emulator?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The portal's contacts: 5,000, 4,500 of them subscribed. */
function portalContacts(): Array<{ email: string; subscribed: boolean }> {
  const contacts: Array<{ email: string; subscribed: boolean }> = [];
  const add = (count: number, make: (i: number) => string, subscribed = true) => {
    for (let i = 1; i <= count; i++) contacts.push({ email: make(i), subscribed });
  };
  add(100, (i) => `user${i}@accept.test`);
  add(900, (i) => `nobody${i}@accept.test`);
  add(2300, (i) => `anyone${i}@catchall.test`);
  add(50, (i) => `user${i}@greylist.test`);
  add(100, (i) => `user${i}@slowbanner.test`);
  add(
    4,
    (i) => `${['info', 'sales', 'support', 'postmaster'][i - 1]}@${i === 4 ? 'accept' : 'catchall'}.test`,
  );
  add(296, (i) => `someone${i}@dead-domain-${i}.test`);
  add(400, (i) => `lapsed${i}@catchall.test`, false);
  add(100, (i) => `gone${i}@accept.test`, false);
  add(5000 - contacts.length, (i) => `late${i}@catchall.test`);
  return contacts;
}

test('a 5,000-contact list is read, verified and written back exactly, through 429 and 500 bursts', async () => {
  const key = await server.key({ quota: 100_000, name: 'hubspot-e2e' });
  const { portal, token } = emulator.addPortal(4_000_001, 'bigshop.hubspot.test');
  const contacts = portalContacts();
  const ids = contacts.map(
    (contact) => addContact(portal, contact.email, { optedOut: !contact.subscribed }).id,
  );
  const list = addList(portal, 'Newsletter', ids);
  const subscribed = contacts.filter((contact) => contact.subscribed);

  const api = (method: string, path: string, body?: unknown) => server.call(key, method, path, body);
  const refused = await api('POST', '/integrations', {
    provider: 'hubspot',
    api_key: 'pat-na1-00000000-0000-0000-0000-000000000000',
  });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.errors[0].field, 'api_key');
  const connected = await api('POST', '/integrations', { provider: 'hubspot', api_key: token });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  assert.equal(
    connected.body.account_name,
    'HubSpot portal 4000001',
    'private-app token info names no hub domain',
  );
  const integrationId = connected.body.id as string;

  const audiences = await api('GET', `/integrations/${integrationId}/audiences`);
  assert.equal(audiences.status, 200);
  assert.deepEqual(
    audiences.body.audiences.map((a: { id: string; name: string; member_count: number }) => [
      a.id,
      a.name,
      a.member_count,
    ]),
    [
      ['all', 'All contacts', 5000],
      [list.listId, 'Newsletter', 5000],
    ],
  );

  emulator.fail(3, 429);
  const started = await api('POST', `/integrations/${integrationId}/runs`, {
    audience_id: list.listId,
    write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  let injected = false;
  let run: { state: string; list_id: string; message: string | null; counts: Record<string, number> };
  const deadline = Date.now() + 300_000;
  for (;;) {
    run = (await api('GET', `/integrations/${integrationId}/runs/${started.body.id}`)).body;
    if (run.state === 'verifying' && !injected) {
      emulator.fail(2, 500);
      injected = true;
    }
    if (['completed', 'failed', 'cancelled'].includes(run.state)) break;
    assert.ok(Date.now() < deadline, `hang guard: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(run.state, 'completed', JSON.stringify(run));
  assert.equal(run.counts.members, subscribed.length);
  assert.equal(run.counts.verified, subscribed.length);
  assert.equal(run.counts.written, subscribed.length);
  assert.equal(run.counts.write_errors, 0);

  const rows = (await (await server.api(key, `/lists/${run.list_id}/results?format=json`)).json()) as Array<{
    email: string;
    result: { status: Status; score: number } | null;
  }>;
  assert.equal(rows.length, subscribed.length);
  const byEmail = new Map(
    [...portal.contacts.values()].map((contact) => [contact.properties.email, contact]),
  );
  const today = new Date().toISOString().slice(0, 10);
  for (const row of rows) {
    assert.ok(row.result !== null, `${row.email} has a result`);
    const contact = byEmail.get(row.email)!;
    assert.equal(contact.properties.mailvet_status, row.result.status, row.email);
    assert.equal(contact.properties.mailvet_score, String(row.result.score), row.email);
    assert.equal(contact.properties.mailvet_checked, today, row.email);
    assert.equal(contact.properties.mailvet_category, categoryOf(row.result.status), row.email);
    assert.equal(contact.properties.hs_email_optout, 'false');
  }
  const statusOf = (email: string) => rows.find((row) => row.email === email)?.result?.status;
  assert.equal(statusOf('user7@accept.test'), 'VALID');
  assert.equal(statusOf('nobody7@accept.test'), 'INVALID');
  assert.equal(statusOf('anyone7@catchall.test'), 'PROBABLY_VALID');
  assert.equal(statusOf('user7@greylist.test'), 'VALID');
  assert.equal(statusOf('user7@slowbanner.test'), 'DISPOSABLE');
  assert.equal(statusOf('someone7@dead-domain-7.test'), 'INVALID_DOMAIN');

  // Opted-out contacts untouched; nothing deleted or archived.
  for (const contact of contacts.filter((each) => !each.subscribed)) {
    const found = byEmail.get(contact.email)!;
    assert.equal(found.writes, 0, contact.email);
    assert.equal(found.properties.mailvet_status, undefined);
  }
  assert.equal(emulator.requests.filter((r) => r.method === 'DELETE').length, 0);
  assert.ok([...portal.contacts.values()].every((contact) => !contact.archived));

  // Written once: the group, four properties, three DYNAMIC lists.
  assert.ok(portal.groups.has('mailvet'));
  for (const name of ['mailvet_status', 'mailvet_score', 'mailvet_checked', 'mailvet_category'])
    assert.ok(portal.properties.has(name), name);
  const scoreLists = [...portal.lists.values()].filter((each) => each.name.startsWith('Mailvet score'));
  assert.deepEqual(scoreLists.map((each) => [each.name, each.processingType]).sort(), [
    ['Mailvet score 0-49', 'DYNAMIC'],
    ['Mailvet score 50-79', 'DYNAMIC'],
    ['Mailvet score 80-100', 'DYNAMIC'],
  ]);

  // Limits: 5 in flight, the window never exceeded (the emulator refuses past it: none refused),
  // reads and writes of 100.
  assert.ok(emulator.peakInFlight <= 5, `peak in flight ${emulator.peakInFlight}`);
  assert.ok(emulator.peakWindow <= 100, `peak window ${emulator.peakWindow}`);
  const windowRefusals = emulator.requests.filter((r) => r.status === 429).length;
  assert.equal(
    windowRefusals,
    3,
    `only the injected 429s, none for the window: ${JSON.stringify(
      emulator.requests
        .filter((r) => r.status === 429)
        .map((r) => {
          const window = emulator.requests.filter((o) => o.at > r.at - 10_000 && o.at <= r.at);
          return { ...r, inWindow: window.length };
        }),
    )}`,
  );
  assert.equal(
    emulator.count('/crm/v3/objects/contacts/batch/update', 'POST'),
    45,
    '4,500 written 100 a request',
  );
  assert.equal(
    emulator.count(`/crm/v3/lists/${list.listId}/memberships`, 'GET'),
    50,
    'the list read once, 100 a page',
  );
  assert.equal(
    emulator.count('/crm/v3/objects/contacts/batch/read', 'POST'),
    50,
    'each page read by one batch',
  );
  assert.equal(emulator.requests.filter((r) => r.status === 500).length, 2, 'the injected 500s, retried');

  // The quota: each unique subscribed address once.
  const keyRecord = (await server.server.store.listApiKeys()).find(
    (record) => record.name === 'hubspot-e2e',
  )!;
  assert.equal(
    (await usageOfKey(server.server.store, keyRecord.id, monthOf(new Date()))).verifications,
    subscribed.length,
  );

  // A second account sees nothing of it.
  const other = await server.key({ quota: 10, name: 'other' });
  assert.equal((await server.call(other, 'GET', `/integrations/${integrationId}`)).status, 404);
  assert.equal(
    (await server.call(other, 'GET', `/integrations/${integrationId}/runs/${started.body.id}`)).status,
    404,
  );
  assert.deepEqual((await server.call(other, 'GET', '/integrations')).body.integrations, []);
});
