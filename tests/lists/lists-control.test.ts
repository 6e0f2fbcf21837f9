/**
 * Controlling list jobs through the API: pause, resume, cancel, delete and their 409s;
 * a list that runs out of quota pauses with a clear message, is never charged twice, and resumes
 * by itself once quota is back.
 */

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { parse } from 'content-disposition';
import type { ListView } from '../../src/lists/list-view.ts';
import { monthOf } from '../../src/usage/months.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { createJsonList, type ListServer, startListServer } from './list-server.ts';

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer();
  key = await lists.key();
});
after(() => lists?.close());

async function post(path: string): Promise<{ status: number; body: ListView & { code?: string } }> {
  const response = await lists.api(key, path, { method: 'POST' });
  return { status: response.status, body: (await response.json()) as ListView & { code?: string } };
}

test('pause, resume, then the list completes; actions its state forbids are 409 conflict', async () => {
  const tarpit = lists.world.domains.tarpit;
  const accept = lists.world.domains['accept-known'];
  // The tarpit holds its probes for the probe timeout: the list is still running when paused.
  const emails = [`alice@${tarpit}`, `bob@${tarpit}`, `alice@${accept}`, `bob@${accept}`];
  const created = await createJsonList(lists, key, { name: 'to pause', emails });

  const paused = await post(`/lists/${created.id}/pause`);
  assert.equal(paused.status, 200);
  assert.equal(paused.body.state, 'paused');
  assert.equal((await post(`/lists/${created.id}/pause`)).status, 409);
  const conflict = await post(`/lists/${created.id}/pause`);
  assert.equal(conflict.body.code, 'conflict');
  assert.match(conflict.body.message ?? '', /paused/);

  // Paused stays paused: nothing completes it behind the owner's back.
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal((await lists.waitFor(key, created.id, () => true)).state, 'paused');

  const resumed = await post(`/lists/${created.id}/resume`);
  assert.equal(resumed.status, 200);
  assert.ok(['queued', 'running'].includes(resumed.body.state));
  const done = await lists.waitFor(key, created.id, (list) => list.state === 'completed');
  assert.equal(done.counts.processed, 4);
  assert.equal(done.counts.valid, 2);
  assert.equal(done.counts.probably_valid, 2, 'the tarpit is inconclusive (timeout), never INVALID');
  for (const action of ['pause', 'resume', 'cancel']) {
    assert.equal((await post(`/lists/${created.id}/${action}`)).status, 409, action);
  }
});

test('cancel keeps the results so far and records list.cancelled; delete removes the list and its results', async () => {
  const tarpit = lists.world.domains.tarpit;
  // The receiver is never reached (the event is read from the outbox): a port nothing listens on.
  const webhook_url = 'http://127.0.0.1:9/hooks/mailvet';
  const created = await createJsonList(lists, key, {
    emails: [`carol@${tarpit}`, 'not an address'],
    webhook_url,
  });
  assert.equal(created.name, 'Untitled list');
  const cancelled = await post(`/lists/${created.id}/cancel`);
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.state, 'cancelled');
  assert.ok(cancelled.body.finished_at !== null);
  assert.equal((await post(`/lists/${created.id}/resume`)).status, 409);
  const outbox = new Database(join(lists.dataDir, 'mailvet.db'), { readonly: true });
  try {
    const events = outbox
      .prepare('select event, body from webhook_deliveries where list_id = ?')
      .all(created.id) as Array<{ event: string; body: string }>;
    assert.deepEqual(
      events.map((event) => event.event),
      ['list.cancelled'],
    );
    const body = JSON.parse(events[0]!.body);
    assert.equal(body.data.list.state, 'cancelled');
    assert.equal(body.data.list.message, 'Cancelled by its owner.');
  } finally {
    outbox.close();
  }
  const results = await lists.api(key, `/lists/${created.id}/results?format=json`);
  assert.equal(((await results.json()) as unknown[]).length, 2);

  const deleted = await lists.api(key, `/lists/${created.id}`, { method: 'DELETE' });
  assert.equal(deleted.status, 204);
  assert.equal((await lists.api(key, `/lists/${created.id}`)).status, 404);
  assert.equal((await lists.api(key, `/lists/${created.id}/results`)).status, 404);
  assert.equal((await lists.api(key, `/lists/${created.id}`, { method: 'DELETE' })).status, 404);
  const rows = new Database(join(lists.dataDir, 'mailvet.db'), { readonly: true });
  try {
    const left = rows.prepare('select count(*) as n from list_rows where list_id = ?').get(created.id) as {
      n: number;
    };
    assert.equal(left.n, 0);
  } finally {
    rows.close();
  }
});

test('out of quota: the list pauses with a message, and resumes by itself when quota is back', async () => {
  const quotaKey = await lists.key({ quota: 3, name: 'quota key' });
  const accept = lists.world.domains['accept-known'];
  const emails = ['alice', 'bob', 'carol', 'dave', 'erin', 'alice'].map((user) => `${user}@${accept}`);
  const created = await createJsonList(lists, quotaKey, { name: 'bigger than the quota', emails });
  const paused = await lists.waitFor(quotaKey, created.id, (list) => list.state === 'paused');
  assert.match(paused.message ?? '', /quota/i);
  assert.equal(paused.counts.processed, 4, 'three unique addresses: alice (twice), bob, carol');

  const keyId = (await lists.server.store.listApiKeys()).find((record) => record.name === 'quota key')!.id;
  const usage = () => usageOfKey(lists.server.store, keyId, monthOf(new Date()));
  assert.equal((await usage()).verifications, 3);

  // More quota for the key (as an operator would grant): the worker's sweep resumes the list.
  const db = new Database(join(lists.dataDir, 'mailvet.db'));
  try {
    db.prepare(
      'update accounts set monthly_quota = 10 where id = (select account_id from api_keys where id = ?)',
    ).run(keyId);
  } finally {
    db.close();
  }
  const done = await lists.waitFor(quotaKey, created.id, (list) => list.state === 'completed');
  assert.equal(done.counts.processed, 6);
  assert.equal(done.message, null);
  assert.equal((await usage()).verifications, 5, 'five unique addresses, each charged once');
});

test('revoking the key stops its running list as failed, with a message', async () => {
  const revocable = await lists.key();
  const tarpit = lists.world.domains.tarpit;
  const accept = lists.world.domains['accept-known'];
  // Enough addresses that the list is still running when the key goes.
  const emails = [
    ...Array.from({ length: 3 }, (_, i) => `user${i + 1}@${tarpit}`),
    ...Array.from({ length: 300 }, (_, i) => `user${i + 1}@${accept}`),
  ];
  const created = await createJsonList(lists, revocable, { name: 'orphan', emails });
  const { store } = lists.server;
  const record = (await store.listApiKeys()).at(-1)!;
  assert.ok(await store.revokeApiKey(record.id));
  const deadline = Date.now() + 30_000;
  let list = await store.lists.getList(created.id);
  while (list?.state !== 'failed' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    list = await store.lists.getList(created.id);
  }
  assert.equal(list?.state, 'failed');
  assert.match(list?.message ?? '', /revoked/);
  assert.ok(list!.counts.processed < 303, 'stopped before the end');
  assert.equal((await lists.api(revocable, `/lists/${created.id}`)).status, 401);
});

test('results download under the name the list was given, non-ASCII names included (RFC 6266)', async () => {
  const named = await createJsonList(lists, key, {
    name: 'Clients été/2026.csv',
    emails: ['not an address'],
  });
  const csv = await lists.api(key, `/lists/${named.id}/results?format=csv`);
  const header = csv.headers.get('content-disposition') ?? '';
  await csv.text();
  assert.equal(parse(header).type, 'attachment');
  assert.equal(parse(header).parameters.filename, 'Clients été-2026-results.csv');
  assert.match(header, /filename="Clients \?t\?-2026-results\.csv"/, 'an ASCII fallback for older clients');

  const unnamed = await createJsonList(lists, key, { name: '...', emails: ['not an address'] });
  const json = await lists.api(key, `/lists/${unnamed.id}/results?format=json`);
  await json.text();
  assert.equal(
    parse(json.headers.get('content-disposition') ?? '').parameters.filename,
    `${unnamed.id}-results.json`,
  );
});
