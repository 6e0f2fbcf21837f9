/**
 * WebhookDispatcher on a real SQLite store with a fake sender and a controlled clock: an event is
 * sent once when due, retried on the backoff schedule, given up when it must be, and never sent by
 * two senders at once. Each case gets its own database: claims look at every delivery in the
 * store, so one case's leftovers must not be due in another's clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/adapters/store/open-store.ts';
import type { Store } from '../../src/store.ts';
import {
  type SendOutcome,
  WebhookDispatcher,
  type WebhookDispatcherDeps,
} from '../../src/webhooks/dispatcher.ts';
import type { WebhookDelivery } from '../../src/webhooks/ports.ts';
import { nextAttemptDelayMs } from '../../src/webhooks/retry.ts';
import { createKey } from '../adapters/store/store-fixtures.ts';

const T0 = Date.parse('2026-03-10T12:00:00.000Z');
const at = (ms: number): Date => new Date(T0 + ms);
const MINUTE = 60_000;
const HOOK_URL = 'https://hooks.example/in';
/** A delivery's row, for what the port does not show: delivered, scheduled, or given up. */
type Row = { attempts: number; next: string | null; delivered: string | null; error: string | null };
const ROW_SQL =
  'select attempts, next_attempt_at as next, delivered_at as delivered, last_error as error from webhook_deliveries where id = ?';

describe('WebhookDispatcher', () => {
  let dataDir: string;
  let store: Store;
  let listId: string;
  /** The dispatcher's clock; cases move it. */
  let clock: Date;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailvet-dispatcher-'));
    store = await openStore({ dataDir });
    clock = at(0);
    // A delivery belongs to a list (foreign key).
    const key = await createKey(store);
    listId = await store.lists.beginList(
      { accountId: key.accountId, apiKeyId: key.id, source: 'json', header: null },
      clock,
    );
    await store.lists.finishUpload(listId, clock, { name: 'hooked', webhookUrl: HOOK_URL });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function addDelivery(id: string, dueAt = at(0)): Promise<void> {
    const body = JSON.stringify({ id, event: 'list.completed' });
    const createdAt = at(0).toISOString();
    await store.lists.addWebhookDelivery(
      { id, listId, url: HOOK_URL, event: 'list.completed', body, createdAt },
      dueAt,
    );
  }

  function row(id: string): Row {
    const raw = new Database(join(dataDir, 'mailvet.db'), { readonly: true });
    try {
      return raw.prepare(ROW_SQL).get(id) as Row;
    } finally {
      raw.close();
    }
  }

  /** A sender recording what it was given and answering with `outcomes` in turn (then ok). */
  function fakeSend(...outcomes: Array<SendOutcome | Error>) {
    const sent: WebhookDelivery[] = [];
    const send: WebhookDispatcherDeps['send'] = async (delivery) => {
      sent.push(delivery);
      // A real POST takes a while: concurrent rounds get the chance to overlap.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const outcome = outcomes.shift() ?? { ok: true };
      if (outcome instanceof Error) throw outcome;
      return outcome;
    };
    return { sent, send };
  }

  const dispatcher = (send: WebhookDispatcherDeps['send'], extra: Partial<WebhookDispatcherDeps> = {}) =>
    new WebhookDispatcher({
      lists: store.lists,
      send,
      nextDelayMs: (attempt) => nextAttemptDelayMs(attempt, MINUTE, 3),
      now: () => clock,
      ...extra,
    });

  it('sends a due delivery once, with its id, event and body, and marks it delivered', async () => {
    await addDelivery('whd_once');
    await addDelivery('whd_later', at(10 * MINUTE));
    const fake = fakeSend();
    const webhooks = dispatcher(fake.send);

    await webhooks.deliverDue();

    assert.equal(fake.sent.length, 1, 'the delivery due later is not sent yet');
    const [sent] = fake.sent;
    assert.equal(sent?.id, 'whd_once');
    assert.equal(sent?.event, 'list.completed');
    assert.equal(sent?.url, HOOK_URL);
    assert.equal(sent?.listId, listId);
    assert.deepEqual(JSON.parse(sent?.body ?? ''), { id: 'whd_once', event: 'list.completed' });
    assert.equal(sent?.attempts, 1);
    assert.deepEqual(row('whd_once'), {
      attempts: 1,
      next: null,
      delivered: at(0).toISOString(),
      error: null,
    });

    // Delivered is final: later rounds send only the other delivery, once it is due.
    await webhooks.deliverDue();
    clock = at(10 * MINUTE);
    await webhooks.deliverDue();
    clock = at(1000 * MINUTE);
    await webhooks.deliverDue();
    assert.deepEqual(
      fake.sent.map((delivery) => delivery.id),
      ['whd_once', 'whd_later'],
    );
  });

  it('retries a failed send on the nextDelayMs schedule, not before, and gives up after the last attempt', async () => {
    await addDelivery('whd_retry');
    const failure: SendOutcome = { ok: false, retry: true, reason: 'HTTP 503' };
    const fake = fakeSend(failure, failure, failure);
    const asked: number[] = [];
    const webhooks = dispatcher(fake.send, {
      nextDelayMs: (attempt) => {
        asked.push(attempt);
        return nextAttemptDelayMs(attempt, MINUTE, 3);
      },
    });

    await webhooks.deliverDue();
    assert.deepEqual(asked, [1]);
    assert.deepEqual(row('whd_retry'), {
      attempts: 1,
      next: at(MINUTE).toISOString(),
      delivered: null,
      error: 'HTTP 503',
    });
    // One millisecond early: not sent; on time: sent.
    clock = at(MINUTE - 1);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 1);
    clock = at(MINUTE);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 2);
    assert.equal(fake.sent[1]?.attempts, 2);
    // The second wait is 4 times the first (nextAttemptDelayMs): 4 minutes after attempt 2.
    assert.equal(row('whd_retry').next, at(5 * MINUTE).toISOString());
    clock = at(5 * MINUTE - 1);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 2);
    clock = at(5 * MINUTE);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 3);

    // Attempt 3 was the last: given up, never sent again.
    assert.deepEqual(asked, [1, 2, 3]);
    assert.deepEqual(row('whd_retry'), { attempts: 3, next: null, delivered: null, error: 'HTTP 503' });
    clock = at(100_000 * MINUTE);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 3);
  });

  it('gives up at once on a failure that says not to retry', async () => {
    await addDelivery('whd_gone');
    const fake = fakeSend({ ok: false, retry: false, reason: 'HTTP 410' });
    const asked: number[] = [];
    const webhooks = dispatcher(fake.send, {
      nextDelayMs: (attempt) => {
        asked.push(attempt);
        return MINUTE;
      },
    });

    await webhooks.deliverDue();
    clock = at(100_000 * MINUTE);
    await webhooks.deliverDue();

    assert.equal(fake.sent.length, 1);
    assert.deepEqual(asked, [], 'no retry is scheduled');
    assert.deepEqual(row('whd_gone'), { attempts: 1, next: null, delivered: null, error: 'HTTP 410' });
  });

  it('retries a send that throws instead of losing the event', async () => {
    await addDelivery('whd_bug');
    const fake = fakeSend(new Error('signing blew up'));
    const webhooks = dispatcher(fake.send);

    await webhooks.deliverDue();
    assert.deepEqual(row('whd_bug'), {
      attempts: 1,
      next: at(MINUTE).toISOString(),
      delivered: null,
      error: 'signing blew up',
    });
    clock = at(MINUTE);
    await webhooks.deliverDue();
    assert.equal(fake.sent.length, 2);
    assert.equal(row('whd_bug').delivered, at(MINUTE).toISOString());
  });

  it('never sends one delivery from two concurrent rounds', async () => {
    // More than one claim batch, so the rounds loop and overlap on later batches too.
    const ids = Array.from({ length: 25 }, (_, i) => `whd_c${String(i).padStart(2, '0')}`);
    for (const id of ids) await addDelivery(id);
    // A second store instance on the same file: its own connection, as another process has.
    const other = await openStore({ dataDir });
    try {
      const fake = fakeSend();
      const here = dispatcher(fake.send, { batchSize: 5 });
      const there = new WebhookDispatcher({
        lists: other.lists,
        send: fake.send,
        nextDelayMs: () => MINUTE,
        now: () => clock,
        batchSize: 5,
      });

      await Promise.all([here.deliverDue(), here.deliverDue(), there.deliverDue()]);
      // A round that lost claims to another returns early; a next round picks up what is left.
      await here.deliverDue();

      const sentIds = fake.sent.map((delivery) => delivery.id).sort();
      assert.deepEqual(sentIds, ids, 'each delivery sent exactly once');
      assert.ok(fake.sent.every((delivery) => delivery.attempts === 1));
    } finally {
      await other.close();
    }
  });
});
