/**
 * A list whose every run fails (a bug in processing, not a bad address) ends `failed` with a
 * message for its owner, instead of being queued again for ever: the in-process queue, the real
 * SQLite store and the container's queue error handler.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { InProcessQueue } from '../../src/adapters/queue/local/in-process-queue.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { failListsGivenUp } from '../../src/container/jobs.ts';
import { job } from '../adapters/queue/queue-test-helpers.ts';
import { createKey } from '../adapters/store/store-fixtures.ts';
import { addUploadRows } from '../helpers/list-upload.ts';

test('a list that fails on every attempt is marked failed, its webhook told, and the failures logged', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-failed-'));
  const store = await openStore({ dataDir });
  try {
    const key = await createKey(store);
    const id = await store.lists.beginList(
      { accountId: key.accountId, apiKeyId: key.id, source: 'json', header: null },
      new Date(),
    );
    await addUploadRows(
      store.lists,
      id,
      [{ rowNumber: 1, email: 'a@b.test', addressKey: 'a@b.test', domain: 'b.test', fields: null }],
      new Date(),
    );
    await store.lists.finishUpload(id, new Date(), {
      name: 'doomed',
      webhookUrl: 'https://hooks.example/lists',
    });

    const warnings: string[] = [];
    const queue = new InProcessQueue({
      attempts: 3,
      backoffMs: 1,
      onError: failListsGivenUp(store.lists, (m) => warnings.push(m)),
    });
    let runs = 0;
    queue.consume(
      {
        list: async () => {
          runs += 1;
          throw new Error('a bug in processing');
        },
      },
      { concurrency: 1 },
    );
    await queue.enqueue(job(id));
    const deadline = Date.now() + 10_000;
    while ((await store.lists.getList(id))?.state !== 'failed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const list = await store.lists.getList(id);
    assert.equal(list?.state, 'failed');
    assert.match(list?.message ?? '', /failed after several attempts/);
    assert.doesNotMatch(list?.message ?? '', /a bug in processing/, 'internal detail stays in the log');
    assert.equal(runs, 3);
    assert.equal(warnings.length, 3);
    assert.match(warnings.at(-1) ?? '', /given up/);
    assert.ok(!(await store.lists.runnableListIds()).includes(id), 'no sweep queues it again');
    // Its owner's webhook hears of it, with the reason it was given (recorded just after the state
    // changes, so it is waited for too).
    let due: Awaited<ReturnType<typeof store.lists.claimWebhookDeliveries>> = [];
    while (due.length === 0 && Date.now() < deadline) {
      due = await store.lists.claimWebhookDeliveries(
        new Date(Date.now() + 1_000),
        new Date(Date.now() + 60_000),
        10,
      );
      if (due.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      due.map((delivery) => [delivery.listId, delivery.event, delivery.url]),
      [[id, 'list.failed', 'https://hooks.example/lists']],
    );
    const body = JSON.parse(due[0]!.body);
    assert.equal(body.event, 'list.failed');
    assert.equal(body.data.list.state, 'failed');
    assert.match(body.data.list.message, /failed after several attempts/);
    await queue.close();
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
