/**
 * An upload's writes run while the next rows are read (WriteAhead): never more than `depth` at
 * once, started in order, a failed write failing the upload, and an upload that fails half-way
 * undone only once its write in flight has landed (a late write would leave rows behind its delete).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { type IncomingRow, ListService, type ListServiceDeps } from '../../src/lists/list-service.ts';
import type { ListStore } from '../../src/lists/ports.ts';
import { UploadError } from '../../src/lists/upload/upload-error.ts';
import { WriteAhead } from '../../src/lists/upload/write-ahead.ts';
import type { Store } from '../../src/store.ts';
import { createKey } from '../adapters/store/store-fixtures.ts';

/** A write that finishes when the test says so, and records when it started and ended. */
function gate(log: string[], name: string) {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return {
    write: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
    open,
    fail,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('WriteAhead', () => {
  it('keeps at most `depth` writes in flight and starts them in order', async () => {
    const log: string[] = [];
    const writes = new WriteAhead(2);
    const [a, b, c] = [gate(log, 'a'), gate(log, 'b'), gate(log, 'c')];
    await writes.add(a.write);
    await writes.add(b.write);
    let thirdAdded = false;
    const third = writes.add(c.write).then(() => {
      thirdAdded = true;
    });
    await turn();
    assert.deepEqual(log, ['start a', 'start b'], 'the third waits for a slot');
    assert.equal(thirdAdded, false);
    a.open();
    await third;
    assert.deepEqual(log, ['start a', 'start b', 'end a', 'start c']);
    b.open();
    c.open();
    await writes.drain();
    assert.deepEqual(log.slice(-2), ['end b', 'end c']);
  });

  it('fails the next add, or the drain, with a failed write’s error', async () => {
    const log: string[] = [];
    const writes = new WriteAhead(1);
    const a = gate(log, 'a');
    await writes.add(a.write);
    a.fail(new Error('disk full'));
    await assert.rejects(writes.add(gate(log, 'b').write), /disk full/);
    assert.ok(!log.includes('start b'), 'nothing more is written after a failure');

    const again = new WriteAhead(2);
    const c = gate(log, 'c');
    await again.add(c.write);
    c.fail(new Error('connection lost'));
    await assert.rejects(again.drain(), /connection lost/);
  });

  it('settles: waits for every write in flight, failed or not', async () => {
    const log: string[] = [];
    const writes = new WriteAhead(2);
    const [a, b] = [gate(log, 'a'), gate(log, 'b')];
    await writes.add(a.write);
    await writes.add(b.write);
    let settled = false;
    const settling = writes.settle().then(() => {
      settled = true;
    });
    a.fail(new Error('refused'));
    await turn();
    assert.equal(settled, false, 'b is still in flight');
    b.open();
    await settling;
    assert.deepEqual(log, ['start a', 'start b', 'end b']);
  });
});

// One real SQLite store for the uploads below.
let dataDir: string;
let store: Store;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-upload-writes-'));
  store = await openStore({ dataDir });
});
after(async () => {
  await store?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The store's lists as they are, but for the methods given. */
function listsWith(overrides: Partial<ListStore>): ListStore {
  return new Proxy(store.lists, {
    get: (target, name) => {
      const own = overrides[name as keyof ListStore];
      if (own !== undefined) return own;
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A list service on `lists`, with no queue to speak of and every webhook target allowed. */
function serviceOn(lists: ListStore, deps: Partial<ListServiceDeps> = {}): ListService {
  return new ListService({
    lists,
    queue: { enqueue: async () => {} },
    webhookTargets: { refusal: async () => null },
    ...deps,
  });
}

describe('an upload that fails half-way', () => {
  for (const uploadWritesInFlight of [1, 2]) {
    it(`is deleted only after its writes in flight landed, and leaves no rows (${uploadWritesInFlight} in flight)`, async () => {
      const key = await createKey(store);
      const events: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let batches = 0;
      // The store as it is, but the second batch of rows lands late (a slow database).
      const real = store.lists;
      const slow: Pick<ListStore, 'addRows' | 'deleteList'> = {
        addRows: async (...args) => {
          batches += 1;
          const late = batches === 2;
          if (late) await held;
          await real.addRows(...args);
          events.push(`rows ${late ? 'late' : 'on time'} stored`);
        },
        deleteList: async (listId) => {
          events.push('delete');
          await real.deleteList(listId);
        },
      };
      const service = serviceOn(listsWith(slow), { uploadWritesInFlight });
      let listId = '';
      async function* rows(): AsyncGenerator<IncomingRow> {
        for (let i = 0; i < 2_500; i += 1) yield { email: `user${i}@example.test` };
        // The second batch's write is in flight here; the upload now fails.
        setTimeout(release, 50);
        throw new UploadError('validation_failed', 'row 2501 is broken');
      }
      await assert.rejects(
        service.create(
          { accountId: key.accountId, apiKeyId: key.id, source: 'json', header: null },
          rows(),
          () => ({ name: 'half', webhookUrl: null }),
          undefined,
          async (id) => {
            listId = id;
          },
        ),
        /row 2501 is broken/,
      );
      assert.deepEqual(events, ['rows on time stored', 'rows late stored', 'delete']);
      assert.equal(await store.lists.getList(listId), null);
      const db = new Database(join(dataDir, 'mailvet.db'), { readonly: true });
      try {
        assert.deepEqual(db.prepare('select count(*) as n from list_rows').get(), { n: 0 });
      } finally {
        db.close();
      }
    });
  }
});

describe('an upload’s addresses', () => {
  /** Uploads `emails` with a gathering of `capacity`; the merge flag of every addAddresses call. */
  async function upload(emails: readonly string[], capacity?: number) {
    const key = await createKey(store);
    const merges: boolean[] = [];
    const real = store.lists;
    const lists = listsWith({
      addAddresses: (...args) => {
        merges.push(args[3]);
        return real.addAddresses(...args);
      },
    });
    const service = serviceOn(lists, capacity === undefined ? {} : { uniqueAddressCapacity: capacity });
    async function* rows(): AsyncGenerator<IncomingRow> {
      for (const email of emails) yield { email };
    }
    const list = await service.create(
      { accountId: key.accountId, apiKeyId: key.id, source: 'json', header: null },
      rows(),
      () => ({ name: 'gathered', webhookUrl: null }),
    );
    const pending = await store.lists.pendingAddresses(list.id, null, 100);
    return {
      merges,
      unique: list.counts.unique,
      addresses: pending.map((one) => [one.addressKey, one.firstRow, one.rowCount]),
    };
  }

  const emails = ['a@x.test', 'b@x.test', 'a@X.test', 'c@x.test', 'b@x.test', 'd@x.test', 'a@x.test'];
  const stored = [
    ['a@x.test', 1, 3],
    ['b@x.test', 2, 2],
    ['c@x.test', 4, 1],
    ['d@x.test', 6, 1],
  ];

  it('go to the store as new ones when they were gathered in one piece', async () => {
    const { merges, unique, addresses } = await upload(emails);
    assert.deepEqual(merges, [false]);
    assert.equal(unique, 4);
    assert.deepEqual(addresses, stored);
  });

  it('merge with those stored before once a gathering was handed over early', async () => {
    const { merges, unique, addresses } = await upload(emails, 2);
    assert.ok(merges.length >= 3, `${merges.length} handovers`);
    assert.ok(merges.every((merge) => merge));
    assert.equal(unique, 4);
    assert.deepEqual(addresses, stored, 'the same addresses, counts and first rows');
  });
});
