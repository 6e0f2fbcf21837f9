/**
 * List workers that one account cannot block. Attacks on a real server (in-process worker, two
 * slots) and the mail world on loopback:
 * - two one-address lists at a domain whose DNS answers SERVFAIL wait for their re-check (set to
 *   ten minutes here); they used to sleep in both worker slots, so another account's list waited
 *   the ten minutes; now a waiting list holds no slot;
 * - one account queues many lists before another account's one: the other's starts after at most
 *   the lists already running, not behind the whole line;
 * - an account on the free plan runs one list at a time (`maxRunningLists`), however many it queues.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import type { ListView } from '../../src/lists/list-view.ts';
import { createJsonList, type ListServer, startListServer } from '../lists/list-server.ts';

let lists: ListServer;

before(async () => {
  lists = await startListServer(
    {
      MAILVET_LIST_RECHECK_MS: '600000',
      MAILVET_WORKER_CONCURRENCY: '2',
      MAILVET_SMTP_PROBE_TIMEOUT_MS: '4000',
    },
    // Every reply of slow.test's host takes 400 ms: a list of a few addresses there runs for
    // seconds, longer than uploading the line of lists below.
    { tune: { 'reply-delay': { replyDelayMs: 400 } } },
  );
});
after(() => lists?.close());

const slow = () => lists.world.domains['reply-delay'];
const accept = () => lists.world.domains['accept-known'];
const get = async (key: string, id: string): Promise<ListView> =>
  (await (await lists.api(key, `/lists/${id}`)).json()) as ListView;

test('lists waiting minutes for a re-check do not hold the slots another account needs', async () => {
  const attacker = await lists.key();
  const victim = await lists.key();
  const waiting = [
    await createJsonList(lists, attacker, { name: 'servfail 1', emails: ['a@servfail.test'] }),
    await createJsonList(lists, attacker, { name: 'servfail 2', emails: ['b@servfail.test'] }),
  ];
  // Both verified once (dns_error, a result to check again): before the fix, both runners now
  // sleep for the ten-minute re-check in the process's two slots.
  for (const list of waiting) await lists.waitFor(attacker, list.id, (seen) => seen.state === 'running');
  await new Promise((resolve) => setTimeout(resolve, 500));

  const mine = await createJsonList(lists, victim, { name: 'victim', emails: [`alice@${accept()}`] });
  // A hang guard far under the ten-minute re-check: the old behaviour fails here.
  const done = await lists.waitFor(victim, mine.id, (seen) => seen.state === 'completed', 30_000);
  assert.equal(done.counts.processed, 1);
  assert.equal(done.counts.valid, 1);
  for (const list of waiting) {
    const seen = await get(attacker, list.id);
    assert.equal(seen.state, 'running', 'the SERVFAIL lists still wait for their re-check');
    assert.equal(seen.counts.processed, 0);
  }
});

test("one account's long line of lists does not go before another account's list", async () => {
  const busy = await lists.key();
  const other = await lists.key();
  const line: ListView[] = [];
  for (let i = 0; i < 8; i++) {
    const emails = Array.from({ length: 4 }, (_, j) => `user${i * 4 + j + 1}@${slow()}`);
    line.push(await createJsonList(lists, busy, { name: `line ${i}`, emails }));
  }
  const mine = await createJsonList(lists, other, { name: 'one list', emails: [`bob@${accept()}`] });
  const done = await lists.waitFor(other, mine.id, (seen) => seen.state === 'completed', 60_000);
  const ended = await Promise.all(
    line.map((list) => lists.waitFor(busy, list.id, (seen) => seen.state === 'completed', 60_000)),
  );
  const startedBefore = ended.filter((list) => list.started_at! < done.started_at!).length;
  // First in, first out starts all eight first (two slots); in turn by account, the other list
  // starts as soon as one of the two running ones ends.
  assert.ok(startedBefore <= 4, `${startedBefore} of the 8 earlier lists started first`);
});

test('an account on the free plan runs one list at a time, however many it queues', async () => {
  const { store } = lists.server;
  const issued = await issueApiKey(store, { name: 'free lists', plan: 'free' });
  const accountId = issued.record.accountId;
  const created: ListView[] = [];
  for (let i = 0; i < 3; i++) {
    const emails = Array.from({ length: 4 }, (_, j) => `user${i * 4 + j + 50}@${slow()}`);
    created.push(await createJsonList(lists, issued.key, { name: `free ${i}`, emails }));
  }
  // Watched in the store (the free plan's 5 requests a second would throttle polling the API).
  let most = 0;
  for (let polls = 0; ; polls++) {
    const seen = await store.lists.listLists(accountId, 10);
    most = Math.max(most, seen.filter((list) => list.state === 'running').length);
    if (seen.every((list) => list.state === 'completed')) break;
    assert.ok(polls < 3_000, `still not completed: ${seen.map((list) => list.state).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(most, 1, 'never two lists of the account running at once');
});
