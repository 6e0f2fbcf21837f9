/**
 * A cancel takes effect at once. Attack on a real server and the mail world on loopback: a list of
 * 3,000 addresses at a slow host, cancelled mid-run. Before the fix its lanes went on for whole
 * batches, saving and charging thousands of addresses after the 200. Now nothing is charged or
 * saved once the cancel was answered, and the account pays for exactly the addresses it got a
 * result for (in-flight charges are given back with the cancel).
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import type { ListView } from '../../src/lists/list-view.ts';
import { monthOf } from '../../src/usage/months.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { createJsonList, type ListServer, startListServer } from '../lists/list-server.ts';

let lists: ListServer;

before(async () => {
  lists = await startListServer({}, { tune: { 'reply-delay': { replyDelayMs: 30 } } });
});
after(() => lists?.close());

test('after a cancel is answered, neither the processed count nor the usage moves', async () => {
  const { store } = lists.server;
  const issued = await issueApiKey(store, { name: 'cancel', plan: 'pro', rateLimit: 1000 });
  const domain = lists.world.domains['reply-delay'];
  const emails = Array.from({ length: 3_000 }, (_, i) => `person${i}@${domain}`);
  const created = await createJsonList(lists, issued.key, { name: 'to cancel', emails });
  await lists.waitFor(issued.key, created.id, (list) => list.counts.processed >= 100);

  const response = await lists.api(issued.key, `/lists/${created.id}/cancel`, { method: 'POST' });
  assert.equal(response.status, 200);
  const answered = (await response.json()) as ListView;
  assert.equal(answered.state, 'cancelled');
  const usage = async () => (await usageOfKey(store, issued.record.id, monthOf(new Date()))).verifications;
  const atCancel = { processed: answered.counts.processed, used: await usage() };
  assert.ok(atCancel.processed < emails.length, 'cancelled mid-run');

  // The runner's verifications in flight end within the probe timeout: watch well past it.
  for (let polls = 0; polls < 40; polls++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const list = await lists.waitFor(issued.key, created.id, () => true);
    assert.equal(list.state, 'cancelled');
    assert.equal(list.counts.processed, atCancel.processed, 'no result saved after the cancel');
    assert.equal(await usage(), atCancel.used, 'nothing charged (or refunded) after the cancel');
  }
  // Every address is unique: one charge per address with a result, none for the rest.
  assert.equal(atCancel.used, atCancel.processed);
});
