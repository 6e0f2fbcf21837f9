/**
 * The list store contract: one suite for `ListStore` (store.lists), run against every backend
 * (SQLite, PostgreSQL). A backend's test file hands in where its database is and a way to run SQL
 * on it directly, for what the port does not show (rows left behind, counters set wrong on purpose).
 *
 * Several port methods work across all lists (runnableListIds, deleteStaleUploads, webhook claims),
 * so the cases share one database without tripping on each other: they look only at their own
 * lists and deliveries, keep their clocks in their own eras, and retire the deliveries they made.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ApiKeyRecord } from '../../../src/accounts/ports.ts';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type {
  AddressCharge,
  ListRecord,
  ListStore,
  NewList,
  PendingAddress,
  ResultFilter,
  UploadedRow,
} from '../../../src/lists/ports.ts';
import type { Store } from '../../../src/store.ts';
import { noEvidence } from '../../../src/verification/evidence.ts';
import type { Reason, Status, VerificationResult } from '../../../src/verification/report.ts';
import type { WebhookDelivery } from '../../../src/webhooks/ports.ts';
import { runJsonProcesses } from '../../helpers/json-processes.ts';
import { addUploadRows } from '../../helpers/list-upload.ts';
import type { ListChargeJob, ListChargeOutcome } from './list-store-process.ts';
import {
  accountUsage,
  atMost,
  both,
  createKey,
  ownerOf,
  type StoreContractTarget,
} from './store-fixtures.ts';

/** What a backend's test file provides. */
export interface ListStoreContractTarget extends Pick<StoreContractTarget, 'kind' | 'options'> {
  /** Runs one SQL statement (no parameters) on the suite's database; a query's rows, else []. */
  query(sql: string): Promise<Array<Record<string, unknown>>>;
}

const PROCESS_SCRIPT = fileURLToPath(new URL('./list-store-process.ts', import.meta.url));

const STATUSES: readonly Status[] = [
  'VALID',
  'PROBABLY_VALID',
  'INVALID',
  'INVALID_SYNTAX',
  'INVALID_DOMAIN',
  'NO_MX_RECORDS',
  'DISPOSABLE',
  'ROLE_BASED',
];

/** The usual reason of each status, for realistic results. */
const REASON_OF: Record<Status, Reason> = {
  VALID: 'mailbox_confirmed',
  PROBABLY_VALID: 'catch_all',
  INVALID: 'mailbox_rejected',
  INVALID_SYNTAX: 'syntax_invalid',
  INVALID_DOMAIN: 'domain_not_found',
  NO_MX_RECORDS: 'null_mx',
  DISPOSABLE: 'disposable',
  ROLE_BASED: 'role_account',
};

/** A full result as the pipeline makes it, for `email` with `status`. */
export function verificationResult(
  email: string,
  status: Status = 'VALID',
  overrides: Partial<VerificationResult> = {},
): VerificationResult {
  const reachable = status !== 'INVALID_SYNTAX' && status !== 'INVALID_DOMAIN' && status !== 'NO_MX_RECORDS';
  return {
    email,
    checks: {
      syntax: status !== 'INVALID_SYNTAX',
      domain_exists: status !== 'INVALID_SYNTAX' && status !== 'INVALID_DOMAIN',
      mx_records: reachable,
      mailbox_exists: status === 'VALID',
      disposable: status === 'DISPOSABLE',
      role_based: status === 'ROLE_BASED',
      suggestions: [],
      free_provider: false,
      catch_all: status === 'PROBABLY_VALID' ? true : reachable ? false : null,
      smtp: !reachable
        ? 'skipped'
        : status === 'VALID'
          ? 'deliverable'
          : status === 'INVALID'
            ? 'undeliverable'
            : status === 'PROBABLY_VALID'
              ? 'catch_all'
              : 'unknown',
      catch_all_confidence: null,
    },
    score: status === 'VALID' ? 95 : status === 'PROBABLY_VALID' ? 60 : 5,
    status,
    reason: REASON_OF[status],
    duration_ms: 412.5,
    evidence: noEvidence(),
    ...overrides,
  };
}

/** A provisional result (greylisted): deferred for a re-check, not final. */
function greylisted(email: string): VerificationResult {
  return verificationResult(email, 'PROBABLY_VALID', {
    reason: 'greylisted',
    score: 40,
    checks: { ...verificationResult(email, 'PROBABLY_VALID').checks, smtp: 'unknown', catch_all: null },
  });
}

/** An uploaded row as the list service makes it: the key is the address with its domain lower-cased. */
function row(rowNumber: number, email: string, fields: string[] | null = null): UploadedRow {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  return { rowNumber, email, addressKey: `${email.slice(0, at)}@${domain}`, domain, fields };
}

/** Rows 1..n for these addresses. */
function rowsOf(emails: readonly string[]): UploadedRow[] {
  return emails.map((email, i) => row(i + 1, email));
}

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
/** An instant `seconds` after the suite's epoch. */
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const iso = (seconds: number): string => at(seconds).toISOString();

function zeroCounts(): Record<Status, number> {
  return Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<Status, number>;
}

function sorted<T extends string | number>(values: readonly T[]): T[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Registers the whole list store contract for one backend. */
export function listStoreContract(target: ListStoreContractTarget): void {
  describe(`${target.kind} list store contract`, () => {
    let store: Store;
    /** A second instance on the same database: its own connection(s), as another process has. */
    let second: Store;
    let lists: ListStore;
    before(async () => {
      store = await openStore(target.options);
      second = await openStore(target.options);
      lists = store.lists;
    });
    after(async () => {
      await Promise.all([store.close(), second.close()]);
    });

    const newKey = (overrides: Partial<ApiKeyRecord> & { plan?: string } = {}) => createKey(store, overrides);
    const newList = (key: ApiKeyRecord, overrides: Partial<NewList> = {}): NewList => ({
      accountId: key.accountId,
      apiKeyId: key.id,
      source: 'json',
      header: null,
      ...overrides,
    });

    /** Uploads `batches` of rows (one addRows each) and finishes the upload. */
    const upload = async (
      key: ApiKeyRecord,
      batches: ReadonlyArray<readonly UploadedRow[]>,
      options: { createdAt?: Date; finishedAt?: Date; name?: string; list?: Partial<NewList> } = {},
    ): Promise<ListRecord> => {
      const id = await lists.beginList(newList(key, options.list), options.createdAt ?? at(0));
      for (const batch of batches) await addUploadRows(lists, id, batch, options.createdAt ?? at(0));
      return lists.finishUpload(id, options.finishedAt ?? options.createdAt ?? at(0), {
        name: options.name ?? 'list',
        webhookUrl: null,
      });
    };

    const count = async (table: string, listId: string): Promise<number> => {
      const rows = await target.query(`select count(*) as n from ${table} where list_id = '${listId}'`);
      return Number(rows[0]?.n);
    };
    const listExists = async (listId: string): Promise<boolean> =>
      (await target.query(`select id from lists where id = '${listId}'`)).length === 1;
    const chargedKeys = async (listId: string): Promise<string[]> => {
      const rows = await target.query(
        `select address_key from list_addresses where list_id = '${listId}' and charged = 1`,
      );
      return sorted(rows.map((one) => String(one.address_key)));
    };
    const usageRows = async (keyId: string): Promise<number> =>
      (await target.query(`select month from usage where api_key_id = '${keyId}'`)).length;
    /** Every pending address of a list, walked with the cursor `limit` at a time. */
    const walkPending = async (listId: string, limit: number): Promise<PendingAddress[]> => {
      const all: PendingAddress[] = [];
      for (;;) {
        const last = all.at(-1);
        const page = await lists.pendingAddresses(
          listId,
          last === undefined ? null : { domain: last.domain, addressKey: last.addressKey },
          limit,
        );
        all.push(...page);
        if (page.length < limit) return all;
      }
    };

    describe('uploads', () => {
      it('stores the addresses of an upload gathered in one piece as new ones (no merge)', async () => {
        const key = await newKey();
        const id = await lists.beginList(newList(key), at(0));
        const rows = [
          row(1, 'ann@example.test'),
          row(2, 'bob@example.test'),
          row(3, 'ann@EXAMPLE.test'),
          row(4, 'cy@other.test'),
        ];
        await addUploadRows(lists, id, rows, at(0), false);
        const list = await lists.finishUpload(id, at(1), { name: 'plain', webhookUrl: null });
        assert.deepEqual([list.counts.total, list.counts.unique], [4, 3]);
        assert.deepEqual(
          (await walkPending(id, 10)).map((one) => [one.addressKey, one.email, one.firstRow, one.rowCount]),
          [
            ['ann@example.test', 'ann@example.test', 1, 2],
            ['bob@example.test', 'bob@example.test', 2, 1],
            ['cy@other.test', 'cy@other.test', 4, 1],
          ],
        );
      });

      it('hides a list until its upload finishes, then counts rows and unique addresses', async () => {
        const key = await newKey();
        const header = ['email', 'name'];
        const id = await lists.beginList(newList(key, { source: 'csv', header }), at(0));
        assert.match(id, /^lst_[0-9a-f]{32}$/);
        const hidden = async () => {
          assert.equal(await lists.getList(id), null);
          assert.equal(await lists.getList(id, key.accountId), null);
          assert.deepEqual(await lists.listLists(key.accountId, 10), []);
          assert.ok(!(await lists.runnableListIds()).includes(id));
        };
        await hidden();
        // Duplicates merge within one batch (rows 1 and 3) and across batches (rows 5 and 7).
        await addUploadRows(
          lists,
          id,
          [
            row(1, 'ann@example.test', ['ann@example.test', 'Ann']),
            row(2, 'bob@example.test', ['bob@example.test', 'Bob']),
            row(3, 'ann@EXAMPLE.test', ['ann@EXAMPLE.test', 'Ann again']),
            row(4, 'cy@other.test', ['cy@other.test', 'Cy']),
          ],
          at(0),
        );
        await hidden();
        await addUploadRows(lists, id, [], at(0));
        await addUploadRows(
          lists,
          id,
          [
            row(5, 'bob@example.test', ['bob@example.test', 'Bob again']),
            row(6, 'dee@other.test', ['dee@other.test', 'Dee']),
            row(7, 'ann@example.test', ['ann@example.test', 'Ann thrice']),
          ],
          at(0),
        );
        await hidden();

        const list = await lists.finishUpload(id, at(5), {
          name: 'Leads',
          webhookUrl: 'https://hooks.example.test/lists',
        });
        const expected: ListRecord = {
          id,
          accountId: key.accountId,
          apiKeyId: key.id,
          name: 'Leads',
          state: 'queued',
          source: 'csv',
          header,
          webhookUrl: 'https://hooks.example.test/lists',
          counts: { total: 7, unique: 4, processed: 0, byStatus: zeroCounts() },
          processedAddresses: 0,
          pauseReason: null,
          message: null,
          createdAt: iso(0),
          updatedAt: iso(5),
          startedAt: null,
          finishedAt: null,
          resultsExpiredAt: null,
        };
        assert.deepEqual(list, expected);
        assert.deepEqual(await lists.getList(id), expected);
        assert.deepEqual(await lists.getList(id, key.accountId), expected);
        assert.deepEqual(await lists.listLists(key.accountId, 10), [expected]);
        assert.ok((await lists.runnableListIds()).includes(id));
        // A second finish changes nothing.
        assert.deepEqual(await lists.finishUpload(id, at(9), { name: 'Other', webhookUrl: null }), expected);

        // Each address keeps its first row, as that row wrote it.
        assert.deepEqual(
          (await walkPending(id, 10)).map(({ addressKey, email, firstRow }) => ({
            addressKey,
            email,
            firstRow,
          })),
          [
            { addressKey: 'ann@example.test', email: 'ann@example.test', firstRow: 1 },
            { addressKey: 'bob@example.test', email: 'bob@example.test', firstRow: 2 },
            { addressKey: 'cy@other.test', email: 'cy@other.test', firstRow: 4 },
            { addressKey: 'dee@other.test', email: 'dee@other.test', firstRow: 6 },
          ],
        );
        // Row counts per address: a result counts once per row (ann 3, bob 2, cy 1, dee 1).
        await lists.saveResults(id, [
          { addressKey: 'ann@example.test', result: verificationResult('ann@example.test', 'VALID') },
          { addressKey: 'bob@example.test', result: verificationResult('bob@example.test', 'INVALID') },
          { addressKey: 'cy@other.test', result: verificationResult('cy@other.test', 'DISPOSABLE') },
          { addressKey: 'dee@other.test', result: verificationResult('dee@other.test', 'ROLE_BASED') },
        ]);
        const byStatus = { ...zeroCounts(), VALID: 3, INVALID: 2, DISPOSABLE: 1, ROLE_BASED: 1 };
        const saved = await lists.getList(id);
        assert.deepEqual(saved?.counts, { total: 7, unique: 4, processed: 7, byStatus });
        assert.equal(saved?.processedAddresses, 4);
        await lists.recount(id);
        assert.deepEqual((await lists.getList(id))?.counts, saved?.counts);
        const results = await lists.resultRows(id, 0, 100);
        assert.deepEqual(
          results.map((one) => [one.rowNumber, one.email, one.result?.status, one.result?.email]),
          [
            [1, 'ann@example.test', 'VALID', 'ann@example.test'],
            [2, 'bob@example.test', 'INVALID', 'bob@example.test'],
            [3, 'ann@EXAMPLE.test', 'VALID', 'ann@EXAMPLE.test'],
            [4, 'cy@other.test', 'DISPOSABLE', 'cy@other.test'],
            [5, 'bob@example.test', 'INVALID', 'bob@example.test'],
            [6, 'dee@other.test', 'ROLE_BASED', 'dee@other.test'],
            [7, 'ann@example.test', 'VALID', 'ann@example.test'],
          ],
        );
      });

      it('finishes an empty upload with zero counts', async () => {
        const key = await newKey();
        const list = await upload(key, []);
        assert.deepEqual(list.counts, { total: 0, unique: 0, processed: 0, byStatus: zeroCounts() });
        assert.equal(list.source, 'json');
        assert.equal(list.header, null);
        assert.equal(list.webhookUrl, null);
        assert.deepEqual(await lists.pendingAddresses(list.id, null, 10), []);
        assert.deepEqual(await lists.resultRows(list.id, 0, 10), []);
      });

      it('removes only unfinished uploads older than the cutoff', async () => {
        // An era of its own (2001), before every other case's lists, which it must leave alone.
        const old = new Date('2001-01-01T00:00:00.000Z');
        const cutoff = new Date('2001-02-01T00:00:00.000Z');
        const recent = new Date('2001-03-01T00:00:00.000Z');
        const key = await newKey();
        const stale = await lists.beginList(newList(key), old);
        await addUploadRows(lists, stale, rowsOf(['a@stale.test', 'b@stale.test', 'a@stale.test']), old);
        const unfinished = await lists.beginList(newList(key), recent);
        await addUploadRows(lists, unfinished, rowsOf(['a@fresh.test']), recent);
        const finished = await upload(key, [rowsOf(['a@done.test'])], { createdAt: old });

        assert.equal(await lists.deleteStaleUploads(cutoff), 1);
        assert.equal(await listExists(stale), false);
        assert.equal(await count('list_rows', stale), 0);
        assert.equal(await count('list_addresses', stale), 0);
        assert.equal(await listExists(unfinished), true);
        assert.equal(await count('list_rows', unfinished), 1);
        assert.deepEqual(await lists.getList(finished.id), finished);
        assert.equal(await lists.deleteStaleUploads(cutoff), 0);

        // The upload that was still going on finishes normally.
        const done = await lists.finishUpload(unfinished, recent, { name: 'late', webhookUrl: null });
        assert.equal(done.state, 'queued');
        assert.equal(done.counts.total, 1);
      });

      it('deletes a list with its rows, addresses and deliveries, beyond one slice of 10,000', async () => {
        const key = await newKey();
        // 10,500 rows of 10,200 addresses: both tables need a second slice.
        const rows = Array.from({ length: 10_500 }, (_, i) => {
          const email = `user${i % 10_200}@d${(i % 10_200) % 7}.test`;
          return row(i + 1, email, [email, `n${i}`]);
        });
        const batches = Array.from({ length: 6 }, (_, i) => rows.slice(i * 2_000, (i + 1) * 2_000));
        const big = await upload(key, batches);
        assert.deepEqual([big.counts.total, big.counts.unique], [10_500, 10_200]);
        const kept = await upload(key, [rowsOf(['user1@d1.test', 'user2@d2.test'])]);
        // Due long after every other case's claims, so it can never be claimed by them.
        await lists.addWebhookDelivery(
          {
            id: `whd_${randomUUID()}`,
            listId: big.id,
            url: 'https://hooks.example.test/x',
            event: 'list.completed',
            body: '{}',
            createdAt: iso(0),
          },
          new Date('2099-01-01T00:00:00.000Z'),
        );

        await lists.deleteList(big.id);
        assert.equal(await lists.getList(big.id), null);
        assert.equal(await listExists(big.id), false);
        for (const table of ['list_rows', 'list_addresses', 'webhook_deliveries']) {
          assert.equal(await count(table, big.id), 0, table);
        }
        assert.equal(await count('list_rows', kept.id), 2);
        assert.equal(await count('list_addresses', kept.id), 2);
        assert.deepEqual(await lists.getList(kept.id), kept);
        // Deleting what is not there is no error.
        await lists.deleteList(big.id);
        await lists.deleteList(`lst_${randomUUID().replaceAll('-', '')}`);
      });
    });

    describe('reading lists', () => {
      it('answers getList and listLists only for the owning account', async () => {
        const mine = await newKey();
        const theirs = await newKey();
        const list = await upload(mine, [rowsOf(['a@x.test'])]);
        assert.deepEqual(await lists.getList(list.id, mine.accountId), list);
        assert.deepEqual(await lists.getList(list.id), list);
        assert.equal(await lists.getList(list.id, theirs.accountId), null);
        assert.equal(await lists.getList(`lst_${randomUUID().replaceAll('-', '')}`), null);
        assert.deepEqual(await lists.listLists(theirs.accountId, 10), []);
        const theirList = await upload(theirs, [rowsOf(['b@x.test'])]);
        assert.deepEqual(await lists.listLists(theirs.accountId, 10), [theirList]);
        assert.deepEqual(await lists.listLists(mine.accountId, 10), [list]);
      });

      it('pages newest first with the (createdAt, id) cursor, without gaps or duplicates', async () => {
        const key = await newKey();
        // Ties in createdAt are ordered by id.
        const seconds = [100, 100, 100, 200, 50, 200, 300, 100];
        const made: ListRecord[] = [];
        for (const second of seconds) made.push(await upload(key, [], { createdAt: at(second) }));
        await lists.beginList(newList(key), at(400)); // uploading: never listed
        const expected = [...made]
          .sort((a, b) =>
            a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
          )
          .map((list) => list.id);
        assert.deepEqual(
          (await lists.listLists(key.accountId, 100)).map((list) => list.id),
          expected,
        );
        for (const size of [1, 2, 3, 8]) {
          const seen: string[] = [];
          let cursor: { createdAt: string; id: string } | undefined;
          for (;;) {
            const page = await lists.listLists(key.accountId, size, cursor);
            assert.ok(page.length <= size);
            seen.push(...page.map((list) => list.id));
            const last = page.at(-1);
            if (last === undefined) break;
            cursor = { createdAt: last.createdAt, id: last.id };
          }
          assert.deepEqual(seen, expected, `pages of ${size}`);
        }
      });
    });

    describe('storage and retention', () => {
      it('accountStorage counts an account’s stored rows and its unfinished lists', async () => {
        const key = await newKey();
        const sameAccount = await newKey({ accountId: key.accountId });
        assert.deepEqual(await lists.accountStorage(key.accountId), { storedRows: 0, unfinishedLists: 0 });
        const queued = await upload(key, [rowsOf(['a@x.test', 'b@x.test', 'a@x.test'])]);
        const done = await upload(sameAccount, [rowsOf(['c@x.test'])]);
        await lists.transition(done.id, ['queued'], 'cancelled', at(1));
        // An upload in progress is unfinished; its rows count once it is whole.
        const uploading = await lists.beginList(newList(key), at(2));
        await addUploadRows(lists, uploading, rowsOf(['d@x.test']), at(2));
        assert.deepEqual(await lists.accountStorage(key.accountId), { storedRows: 4, unfinishedLists: 2 });
        await lists.transition(queued.id, ['queued'], 'paused', at(3));
        assert.equal((await lists.accountStorage(key.accountId)).unfinishedLists, 2, 'paused is unfinished');
        await lists.deleteList(queued.id);
        assert.deepEqual(await lists.accountStorage(key.accountId), { storedRows: 1, unfinishedLists: 1 });
        assert.deepEqual(await lists.accountStorage((await newKey()).accountId), {
          storedRows: 0,
          unfinishedLists: 0,
        });
      });
    });

    describe('starting runs under the per-account cap', () => {
      it('startRun: started, running, waiting, capped and idle', async () => {
        const key = await newKey();
        const [first, second, third] = [
          await upload(key, [rowsOf(['a@x.test'])]),
          await upload(key, [rowsOf(['b@x.test'])]),
          await upload(key, [rowsOf(['c@x.test'])]),
        ];
        assert.deepEqual(await lists.startRun(first!.id, at(1), 2), { kind: 'started' });
        assert.deepEqual(await lists.startRun(first!.id, at(1), 2), { kind: 'running' });
        assert.deepEqual(await lists.startRun(second!.id, at(1), 2), { kind: 'started' });
        assert.deepEqual(await lists.startRun(third!.id, at(1), 2), { kind: 'capped' });
        // A list waiting for a re-check does not count: the third may start, and the waiting one
        // says when it is due.
        assert.equal(await lists.waitUntil(first!.id, at(100)), true);
        assert.deepEqual(await lists.startRun(first!.id, at(2), 2), { kind: 'waiting', at: iso(100) });
        assert.deepEqual(await lists.startRun(third!.id, at(2), 2), { kind: 'started' });
        assert.deepEqual(await lists.startRun(first!.id, at(101), 2), { kind: 'capped' });
        await lists.transition(second!.id, ['running'], 'paused', at(102));
        assert.deepEqual(await lists.startRun(second!.id, at(102), 2), { kind: 'idle' });
        assert.deepEqual(await lists.startRun(first!.id, at(103), 2), { kind: 'started' });
        // Another account has a cap of its own.
        const other = await upload(await newKey(), [rowsOf(['d@x.test'])]);
        assert.deepEqual(await lists.startRun(other.id, at(103), 2), { kind: 'started' });
      });

      it('never starts more than the cap when workers start an account’s lists at once', async () => {
        const key = await newKey();
        const queued = [];
        for (let i = 0; i < 8; i++) queued.push(await upload(key, [rowsOf([`r${i}@x.test`])]));
        const outcomes = await Promise.all(queued.map((list) => lists.startRun(list.id, at(1), 2)));
        assert.equal(outcomes.filter((outcome) => outcome.kind === 'started').length, 2);
        assert.equal(outcomes.filter((outcome) => outcome.kind === 'capped').length, 6);
      });
    });

    describe('transitions', () => {
      it('moves a list only from the given states, with startedAt once and finishedAt at the end', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(['a@x.test'])], { createdAt: at(0), finishedAt: at(1) });
        assert.equal(await lists.transition(list.id, ['running', 'paused'], 'completed', at(2)), false);
        assert.deepEqual(await lists.getList(list.id), list);

        assert.equal(await lists.transition(list.id, ['queued'], 'running', at(3)), true);
        let now = await lists.getList(list.id);
        assert.deepEqual(
          [now?.state, now?.startedAt, now?.updatedAt, now?.finishedAt],
          ['running', iso(3), iso(3), null],
        );
        assert.ok((await lists.runnableListIds()).includes(list.id));

        assert.equal(await lists.transition(list.id, ['running'], 'paused', at(4)), true);
        assert.ok(!(await lists.runnableListIds()).includes(list.id));
        // A second start keeps the first startedAt.
        assert.equal(await lists.transition(list.id, ['paused'], 'running', at(5)), true);
        now = await lists.getList(list.id);
        assert.deepEqual([now?.state, now?.startedAt, now?.updatedAt], ['running', iso(3), iso(5)]);

        assert.equal(await lists.transition(list.id, ['running'], 'completed', at(6)), true);
        now = await lists.getList(list.id);
        assert.deepEqual([now?.state, now?.startedAt, now?.finishedAt], ['completed', iso(3), iso(6)]);
        assert.ok(!(await lists.runnableListIds()).includes(list.id));
        // Terminal: no way out from any state it is not in.
        assert.equal(
          await lists.transition(list.id, ['queued', 'running', 'paused'], 'running', at(7)),
          false,
        );
        assert.deepEqual(await lists.getList(list.id), now);

        const cancelled = await upload(key, [], { createdAt: at(10) });
        assert.equal(await lists.transition(cancelled.id, ['queued', 'paused'], 'cancelled', at(11)), true);
        now = await lists.getList(cancelled.id);
        assert.deepEqual([now?.state, now?.startedAt, now?.finishedAt], ['cancelled', null, iso(11)]);

        const failed = await upload(key, [], { createdAt: at(20) });
        await lists.transition(failed.id, ['queued'], 'running', at(21));
        assert.equal(
          await lists.transition(failed.id, ['running'], 'failed', at(22), { message: 'store unreachable' }),
          true,
        );
        now = await lists.getList(failed.id);
        assert.deepEqual(
          [now?.state, now?.startedAt, now?.finishedAt, now?.message, now?.pauseReason],
          ['failed', iso(21), iso(22), 'store unreachable', null],
        );
      });

      it('sets, keeps and clears the pause reason and message', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(['a@x.test'])]);
        const other = await upload(key, [rowsOf(['b@x.test'])]);
        await lists.transition(list.id, ['queued'], 'running', at(1));
        await lists.transition(other.id, ['queued'], 'running', at(1));
        assert.equal(
          await lists.transition(list.id, ['running'], 'paused', at(2), {
            pauseReason: 'quota',
            message: 'Monthly quota used up',
          }),
          true,
        );
        await lists.transition(other.id, ['running'], 'paused', at(2), {
          pauseReason: 'user',
          message: null,
        });
        let now = await lists.getList(list.id);
        assert.deepEqual([now?.pauseReason, now?.message], ['quota', 'Monthly quota used up']);
        assert.equal((await lists.getList(other.id))?.pauseReason, 'user');
        const quotaPaused = (await lists.quotaPausedLists()).filter((one) =>
          [list.id, other.id].includes(one.id),
        );
        assert.deepEqual(quotaPaused, [{ id: list.id, apiKeyId: key.id }]);

        // A patch sets only what it names.
        await lists.transition(list.id, ['paused'], 'paused', at(3), { message: 'Still waiting' });
        now = await lists.getList(list.id);
        assert.deepEqual([now?.pauseReason, now?.message], ['quota', 'Still waiting']);
        // Null clears.
        assert.equal(
          await lists.transition(list.id, ['paused'], 'queued', at(4), { pauseReason: null, message: null }),
          true,
        );
        now = await lists.getList(list.id);
        assert.deepEqual([now?.state, now?.pauseReason, now?.message], ['queued', null, null]);
        assert.ok(!(await lists.quotaPausedLists()).some((one) => one.id === list.id));
      });

      it('refuses a transition of another account’s list', async () => {
        const mine = await newKey();
        const theirs = await newKey();
        const list = await upload(mine, []);
        assert.equal(
          await lists.transition(list.id, ['queued'], 'cancelled', at(1), {}, theirs.accountId),
          false,
        );
        assert.deepEqual(await lists.getList(list.id), list);
        assert.equal(
          await lists.transition(list.id, ['queued'], 'cancelled', at(1), {}, mine.accountId),
          true,
        );
        assert.equal((await lists.getList(list.id))?.state, 'cancelled');
        assert.equal(
          await lists.transition(`lst_${randomUUID().replaceAll('-', '')}`, ['queued'], 'running', at(1)),
          false,
        );
      });
    });

    describe('pending addresses and re-checks', () => {
      const emails = [
        'zed@b.test', // 1
        'yan@a.test', // 2
        'xi@c.test', // 3
        'wu@a.test', // 4
        'yan@A.test', // 5: a duplicate of row 2
        'vi@b.test', // 6
        'uma@a.test', // 7
      ];
      const pending = (email: string, firstRow: number): PendingAddress => ({
        addressKey: email,
        email,
        rowCount: email === 'yan@a.test' ? 2 : 1,
        domain: email.slice(email.indexOf('@') + 1),
        firstRow,
        charged: false,
        attempts: 0,
      });
      // By domain, then address: the order they are stored and worked in.
      const inOrder = [
        pending('uma@a.test', 7),
        pending('wu@a.test', 4),
        pending('yan@a.test', 2),
        pending('vi@b.test', 6),
        pending('zed@b.test', 1),
        pending('xi@c.test', 3),
      ];

      it('walks the pending addresses by domain, then address, with the cursor', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(emails)]);
        for (const limit of [1, 2, 4, 6, 100]) {
          assert.deepEqual(await walkPending(list.id, limit), inOrder, `pages of ${limit}`);
        }
        assert.deepEqual(
          await lists.pendingAddresses(list.id, { domain: 'a.test', addressKey: 'wu@a.test' }, 3),
          inOrder.slice(2, 5),
        );
        assert.deepEqual(
          await lists.pendingAddresses(list.id, { domain: 'c.test', addressKey: 'xi@c.test' }, 3),
          [],
        );

        // Done and deferred addresses are no longer pending; charged ones still are, marked so.
        await lists.saveResults(list.id, [
          { addressKey: 'wu@a.test', result: verificationResult('wu@a.test') },
        ]);
        await lists.deferAddresses(list.id, [
          { addressKey: 'vi@b.test', result: greylisted('vi@b.test'), retryAt: at(600) },
        ]);
        await lists.chargeAddresses(list.id, ['zed@b.test'], {
          ...ownerOf(key),
          month: '2026-03',
          ceiling: atMost(10),
        });
        assert.deepEqual(await walkPending(list.id, 2), [
          pending('uma@a.test', 7),
          pending('yan@a.test', 2),
          { ...pending('zed@b.test', 1), charged: true },
          pending('xi@c.test', 3),
        ]);
      });

      it('lists the domains with pending addresses, and walks one domain alone', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(emails)]);
        assert.deepEqual(await lists.pendingDomains(list.id, null, 10), ['a.test', 'b.test', 'c.test']);
        assert.deepEqual(await lists.pendingDomains(list.id, null, 2), ['a.test', 'b.test']);
        assert.deepEqual(await lists.pendingDomains(list.id, 'b.test', 10), ['c.test']);
        assert.deepEqual(await lists.pendingAddresses(list.id, null, 10, 'b.test'), inOrder.slice(3, 5));
        assert.deepEqual(
          await lists.pendingAddresses(list.id, { domain: 'a.test', addressKey: 'uma@a.test' }, 1, 'a.test'),
          [pending('wu@a.test', 4)],
        );
        // A domain whose addresses are all done or deferred is no longer pending.
        await lists.saveResults(list.id, [
          { addressKey: 'xi@c.test', result: verificationResult('xi@c.test') },
        ]);
        await lists.deferAddresses(list.id, [
          { addressKey: 'zed@b.test', result: greylisted('zed@b.test'), retryAt: at(600) },
          { addressKey: 'vi@b.test', result: greylisted('vi@b.test'), retryAt: at(600) },
        ]);
        assert.deepEqual(await lists.pendingDomains(list.id, null, 10), ['a.test']);
        assert.deepEqual(await lists.pendingAddresses(list.id, null, 10, 'c.test'), []);
      });

      it('defers provisional results until their re-check is due', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(emails)]);
        assert.equal(await lists.nextRecheckAt(list.id), null);
        assert.deepEqual(await lists.dueRechecks(list.id, at(10_000), 10), []);

        await lists.deferAddresses(list.id, [
          { addressKey: 'uma@a.test', result: greylisted('uma@a.test'), retryAt: at(600) },
          { addressKey: 'xi@c.test', result: greylisted('xi@c.test'), retryAt: at(300) },
        ]);
        assert.deepEqual(
          (await walkPending(list.id, 10)).map((one) => one.addressKey),
          ['wu@a.test', 'yan@a.test', 'vi@b.test', 'zed@b.test'],
        );
        assert.equal(await lists.nextRecheckAt(list.id), iso(300));
        assert.deepEqual(await lists.dueRechecks(list.id, at(299), 10), []);
        assert.deepEqual(await lists.dueRechecks(list.id, at(300), 10), [
          { ...pending('xi@c.test', 3), attempts: 1 },
        ]);
        // Due ones come by domain then address, `limit` at most.
        assert.deepEqual(await lists.dueRechecks(list.id, at(600), 10), [
          { ...pending('uma@a.test', 7), attempts: 1 },
          { ...pending('xi@c.test', 3), attempts: 1 },
        ]);
        assert.deepEqual(
          (await lists.dueRechecks(list.id, at(600), 1)).map((one) => one.addressKey),
          ['uma@a.test'],
        );
        // A provisional result is no result for the download.
        const provisional = await lists.resultRows(list.id, 6, 1);
        assert.deepEqual(provisional, [{ rowNumber: 7, email: 'uma@a.test', fields: null, result: null }]);

        // Deferred again: one more attempt, the new time.
        await lists.deferAddresses(list.id, [
          { addressKey: 'xi@c.test', result: greylisted('xi@c.test'), retryAt: at(900) },
        ]);
        assert.equal(await lists.nextRecheckAt(list.id), iso(600));
        assert.deepEqual(await lists.dueRechecks(list.id, at(900), 10), [
          { ...pending('uma@a.test', 7), attempts: 1 },
          { ...pending('xi@c.test', 3), attempts: 2 },
        ]);

        // A final result ends the wait; deferring a done address changes nothing.
        await lists.saveResults(list.id, [
          { addressKey: 'uma@a.test', result: verificationResult('uma@a.test', 'VALID') },
        ]);
        await lists.deferAddresses(list.id, [
          { addressKey: 'uma@a.test', result: greylisted('uma@a.test'), retryAt: at(100) },
        ]);
        assert.equal(await lists.nextRecheckAt(list.id), iso(900));
        assert.deepEqual(
          (await lists.dueRechecks(list.id, at(10_000), 10)).map((one) => one.addressKey),
          ['xi@c.test'],
        );
        assert.deepEqual(
          (await lists.resultRows(list.id, 6, 1))[0]?.result,
          verificationResult('uma@a.test'),
        );
        await lists.saveResults(list.id, [
          { addressKey: 'xi@c.test', result: verificationResult('xi@c.test', 'PROBABLY_VALID') },
        ]);
        assert.equal(await lists.nextRecheckAt(list.id), null);
        assert.deepEqual(await lists.dueRechecks(list.id, at(10_000), 10), []);
        const counts = (await lists.getList(list.id))?.counts;
        assert.deepEqual(counts?.byStatus, { ...zeroCounts(), VALID: 1, PROBABLY_VALID: 1 });
      });
    });

    describe('charging addresses', () => {
      const letters = ['a', 'b', 'c', 'd', 'e'].map((letter) => `${letter}@x.test`);
      const [a, b, c, d, e] = letters as [string, string, string, string, string];

      it('charges each address once and makes the usage row on first use', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        const charge: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(100) };
        assert.equal(await usageRows(key.id), 0);
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, b, c], charge), {
          charged: [a, b, c],
          used: both(3),
        });
        assert.equal(await usageRows(key.id), 1);
        // The same keys again: nothing charged, usage unchanged.
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, b, c], charge), {
          charged: [],
          used: both(3),
        });
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, d], charge), {
          charged: [d],
          used: both(4),
        });
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 4);
        assert.deepEqual(await chargedKeys(list.id), [a, b, c, d]);
        assert.deepEqual(
          (await walkPending(list.id, 10)).map((one) => [one.addressKey, one.charged]),
          [
            [a, true],
            [b, true],
            [c, true],
            [d, true],
            [e, false],
          ],
        );
      });

      it('charges the first keys in the given order when the quota is short, the rest later', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        const charge = (limit: number): AddressCharge => ({
          ...ownerOf(key),
          month: '2026-03',
          ceiling: atMost(limit),
        });
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, a, d, b], charge(2)), {
          charged: [c, a],
          used: both(2),
        });
        assert.deepEqual(await chargedKeys(list.id), [a, c]);
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, a, d, b], charge(2)), {
          charged: [],
          used: both(2),
        });
        assert.deepEqual(await chargedKeys(list.id), [a, c]);
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, a, d, b], charge(3)), {
          charged: [d],
          used: both(3),
        });
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, a, d, b], charge(10)), {
          charged: [b],
          used: both(4),
        });
        assert.deepEqual(await chargedKeys(list.id), [a, b, c, d]);
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 4);
      });

      it('counts what the API already used against the limit; limit 0 or no keys charge nothing', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        // Limit 0 on a fresh month: nothing charged, no usage row made.
        assert.deepEqual(
          await lists.chargeAddresses(list.id, [a], {
            ...ownerOf(key),
            month: '2026-03',
            ceiling: atMost(0),
          }),
          {
            charged: [],
            used: both(0),
          },
        );
        assert.equal(await usageRows(key.id), 0);
        assert.deepEqual(await chargedKeys(list.id), []);

        await store.chargeVerifications(ownerOf(key), '2026-03', 5, atMost(100));
        const charge: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(7) };
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, b, c, d], charge), {
          charged: [a, b],
          used: both(7),
        });
        assert.deepEqual(await lists.chargeAddresses(list.id, [c], { ...charge, ceiling: atMost(0) }), {
          charged: [],
          used: both(7),
        });
        // A limit below what is used (a plan changed mid-month) charges nothing and touches nothing.
        assert.deepEqual(await lists.chargeAddresses(list.id, [c, d], { ...charge, ceiling: atMost(3) }), {
          charged: [],
          used: both(7),
        });
        assert.deepEqual(await lists.chargeAddresses(list.id, [], charge), { charged: [], used: both(7) });
        assert.deepEqual(await lists.chargeAddresses(list.id, [], { ...charge, ceiling: atMost(100) }), {
          charged: [],
          used: both(7),
        });
        // Another month is another count.
        assert.deepEqual(
          await lists.chargeAddresses(list.id, [c], { ...charge, month: '2026-04', ceiling: atMost(1) }),
          {
            charged: [c],
            used: both(1),
          },
        );
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 7);
        assert.deepEqual(await chargedKeys(list.id), [a, b, c]);
      });

      it('charges a key named twice in one call once', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        const charge: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(100) };
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, a, b, a], charge), {
          charged: [a, b],
          used: both(2),
        });
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 2);
      });

      it('ignores keys the list does not have, and charges each list for its own addresses', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf([a, b])]);
        const otherList = await upload(key, [rowsOf([a, b])]);
        const charge: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(100) };
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, 'nobody@x.test', e], charge), {
          charged: [a],
          used: both(1),
        });
        assert.deepEqual(await chargedKeys(otherList.id), []);
        assert.deepEqual(await lists.chargeAddresses(otherList.id, [a], charge), {
          charged: [a],
          used: both(2),
        });
        assert.deepEqual(await chargedKeys(list.id), [a]);
      });

      it('refunds exactly the charged addresses among those given', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        const charge: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(100) };
        await store.chargeVerifications(ownerOf(key), '2026-03', 10, atMost(100));
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, b, c], charge), {
          charged: [a, b, c],
          used: both(13),
        });
        await lists.unchargeAddresses(list.id, [a, b, d, 'nobody@x.test'], charge);
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 11);
        assert.deepEqual(await chargedKeys(list.id), [c]);
        await lists.unchargeAddresses(list.id, [a, b], charge);
        await lists.unchargeAddresses(list.id, [], charge);
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 11);
        // An uncharged address may be charged again.
        assert.deepEqual(await lists.chargeAddresses(list.id, [a, d], charge), {
          charged: [a, d],
          used: both(13),
        });
        assert.deepEqual(await chargedKeys(list.id), [a, c, d]);
      });

      it('refunds each address into the month it was charged in, not the month of the refund', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(letters)]);
        const march: AddressCharge = { ...ownerOf(key), month: '2026-03', ceiling: atMost(100) };
        const april: AddressCharge = { ...ownerOf(key), month: '2026-04', ceiling: atMost(100) };
        await lists.chargeAddresses(list.id, [a, b], march);
        await lists.chargeAddresses(list.id, [c], april);
        await store.chargeVerifications(ownerOf(key), '2026-04', 5, atMost(100));
        // A re-check in April spoils a and c: a goes back to March, c to April.
        await lists.unchargeAddresses(list.id, [a, c], april);
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 1);
        assert.equal((await accountUsage(store, key, '2026-04')).verifications, 5);
        assert.deepEqual(await chargedKeys(list.id), [b]);
        // Charged again in April, refunded in May: back to April.
        await lists.chargeAddresses(list.id, [a], april);
        await lists.unchargeAddresses(list.id, [a, b], { ...april, month: '2026-05' });
        assert.equal((await accountUsage(store, key, '2026-03')).verifications, 0);
        assert.equal((await accountUsage(store, key, '2026-04')).verifications, 5);
        assert.equal((await accountUsage(store, key, '2026-05')).verifications, 0);
      });

      describe('under concurrency', () => {
        /**
         * A list of `size` addresses over a few domains, uploaded in descending key order (so the
         * table's physical order is the reverse of its key index), and `calls` overlapping batches:
         * every fourth the whole list (a sequential scan), the others short runs (an index scan).
         * Row locks taken in plan order then cross: that deadlocked PostgreSQL before it was fixed.
         */
        const raceSetup = async (size: number, calls: number) => {
          const key = await newKey();
          const emails = Array.from(
            { length: size },
            (_, i) => `user${String(size - i).padStart(4, '0')}@d${i % 4}.test`,
          );
          const list = await upload(key, [rowsOf(emails)]);
          const batches = Array.from({ length: calls }, (_, i) => {
            const batch =
              i % 4 === 0 ? [...emails] : Array.from({ length: 6 }, (_, j) => emails[(i * 7 + j) % size]!);
            return i % 2 === 1 ? batch.reverse() : batch;
          });
          return { key, list, emails, batches };
        };

        it('charges every address exactly once when 20 overlapping charges race on two instances', async () => {
          const { key, list, emails, batches } = await raceSetup(200, 20);
          const charge: AddressCharge = { ...ownerOf(key), month: '2026-05', ceiling: atMost(1_000) };
          const results = await Promise.all(
            batches.map((batch, i) =>
              (i % 2 === 0 ? store : second).lists.chargeAddresses(list.id, batch, charge),
            ),
          );
          const charged = results.flatMap((result) => result.charged);
          assert.equal(new Set(charged).size, charged.length, 'an address was charged twice');
          assert.deepEqual(sorted(charged), sorted(emails));
          for (const [i, result] of results.entries()) {
            assert.ok(result.charged.every((one) => batches[i]!.includes(one)));
            assert.ok(result.used.account >= result.charged.length && result.used.account <= emails.length);
          }
          assert.equal((await accountUsage(store, key, '2026-05')).verifications, emails.length);
          assert.deepEqual(await chargedKeys(list.id), sorted(emails));
        });

        it('never charges beyond a smaller limit when 20 overlapping charges race on two instances', async () => {
          const { key, list, batches } = await raceSetup(200, 20);
          const charge: AddressCharge = { ...ownerOf(key), month: '2026-05', ceiling: atMost(150) };
          const results = await Promise.all(
            batches.map((batch, i) =>
              (i % 2 === 0 ? store : second).lists.chargeAddresses(list.id, batch, charge),
            ),
          );
          const charged = results.flatMap((result) => result.charged);
          assert.equal(new Set(charged).size, charged.length, 'an address was charged twice');
          assert.equal(charged.length, 150);
          assert.ok(results.every((result) => result.used.account <= 150));
          assert.equal((await accountUsage(second, key, '2026-05')).verifications, 150);
          assert.deepEqual(await chargedKeys(list.id), sorted(charged));
        });

        it('charges every address at most once, within the limit, across separate processes', async () => {
          const { key, list, batches } = await raceSetup(120, 24);
          const charge: AddressCharge = { ...ownerOf(key), month: '2026-06', ceiling: atMost(100) };
          const startAt = Date.now() + 3_000;
          // Small pools: several test runs may share one server's 100 connections.
          const options = { ...target.options, poolSize: 4 };
          const jobs = [0, 1, 2].map(
            (p): ListChargeJob => ({
              options,
              startAt,
              listId: list.id,
              charge,
              batches: batches.filter((_, i) => i % 3 === p),
            }),
          );
          const outcomes = await runListChargeProcesses(jobs);
          const charged = outcomes.flatMap((outcome) => outcome.charged.flat());
          assert.equal(new Set(charged).size, charged.length, 'an address was charged twice');
          assert.equal(charged.length, 100);
          assert.equal((await accountUsage(store, key, '2026-06')).verifications, 100);
          assert.deepEqual(await chargedKeys(list.id), sorted(charged));
        });
      });
    });

    describe('peers at a domain', () => {
      it("lists the list's addresses at the domain in upload order, confirmed when found VALID", async () => {
        const key = await newKey();
        const list = await upload(key, [
          [
            row(1, 'Ann.Lee@Peers.test'),
            row(2, 'bo.park@peers.test'),
            row(3, 'cy@elsewhere.test'),
            row(4, 'dee.fox@peers.test'),
            row(5, 'Ann.Lee@PEERS.test'), // the same address once the domain is folded
          ],
        ]);
        const other = await upload(key, [[row(1, 'eve.gray@peers.test')]]);
        await lists.saveResults(list.id, [
          { addressKey: 'bo.park@peers.test', result: verificationResult('bo.park@peers.test', 'VALID') },
          {
            addressKey: 'dee.fox@peers.test',
            result: verificationResult('dee.fox@peers.test', 'PROBABLY_VALID'),
          },
        ]);
        assert.deepEqual(await lists.peersAtDomain(list.id, 'peers.test', 1000), [
          { localPart: 'Ann.Lee', confirmed: false },
          { localPart: 'bo.park', confirmed: true },
          { localPart: 'dee.fox', confirmed: false },
        ]);
        assert.deepEqual(await lists.peersAtDomain(list.id, 'peers.test', 2), [
          { localPart: 'Ann.Lee', confirmed: false },
          { localPart: 'bo.park', confirmed: true },
        ]);
        assert.deepEqual(await lists.peersAtDomain(other.id, 'peers.test', 1000), [
          { localPart: 'eve.gray', confirmed: false },
        ]);
        assert.deepEqual(await lists.peersAtDomain(list.id, 'nowhere.test', 1000), []);
      });
    });

    describe('results', () => {
      it('saves a result once and counts rows per status', async () => {
        const key = await newKey();
        const ann = 'ann@example.test';
        const bob = 'bob@example.test';
        const cy = 'cy@example.test';
        const list = await upload(key, [
          [row(1, ann), row(2, bob), row(3, 'ann@EXAMPLE.test'), row(4, cy), row(5, bob), row(6, ann)],
        ]);
        const counters = async () => {
          const now = await lists.getList(list.id);
          return { counts: now?.counts, processedAddresses: now?.processedAddresses };
        };
        await lists.saveResults(list.id, [
          { addressKey: ann, result: verificationResult(ann, 'VALID') },
          { addressKey: bob, result: verificationResult(bob, 'INVALID') },
        ]);
        const afterFirst = {
          counts: { total: 6, unique: 3, processed: 5, byStatus: { ...zeroCounts(), VALID: 3, INVALID: 2 } },
          processedAddresses: 2,
        };
        assert.deepEqual(await counters(), afterFirst);

        // A second save of ann (another result) and a repeated key in one batch count nothing more.
        await lists.saveResults(list.id, [
          { addressKey: ann, result: verificationResult(ann, 'INVALID') },
          { addressKey: cy, result: verificationResult(cy, 'DISPOSABLE') },
          { addressKey: cy, result: verificationResult(cy, 'VALID') },
          { addressKey: 'nobody@example.test', result: verificationResult('nobody@example.test') },
        ]);
        await lists.saveResults(list.id, []);
        const afterSecond = {
          counts: {
            total: 6,
            unique: 3,
            processed: 6,
            byStatus: { ...zeroCounts(), VALID: 3, INVALID: 2, DISPOSABLE: 1 },
          },
          processedAddresses: 3,
        };
        assert.deepEqual(await counters(), afterSecond);
        const results = await lists.resultRows(list.id, 0, 10);
        assert.deepEqual(
          results.map((one) => one.result?.status),
          ['VALID', 'INVALID', 'VALID', 'DISPOSABLE', 'INVALID', 'VALID'],
        );
        assert.deepEqual(await walkPending(list.id, 10), []);

        // Recount reproduces the same counters from the addresses, even from wrong ones.
        await lists.recount(list.id);
        assert.deepEqual(await counters(), afterSecond);
        await target.query(
          `update lists set processed_rows = 999, processed_addresses = 77, count_valid = 5,
             count_role_based = 3, count_disposable = 0 where id = '${list.id}'`,
        );
        assert.equal((await lists.getList(list.id))?.counts.byStatus.ROLE_BASED, 3);
        await lists.recount(list.id);
        assert.deepEqual(await counters(), afterSecond);
      });

      it('recounts deferred addresses as not processed, and an untouched list as zero', async () => {
        const key = await newKey();
        const list = await upload(key, [rowsOf(['a@x.test', 'b@x.test', 'a@x.test'])]);
        await target.query(`update lists set processed_rows = 4, count_invalid = 4 where id = '${list.id}'`);
        await lists.recount(list.id);
        assert.deepEqual(await lists.getList(list.id), list);
        await lists.deferAddresses(list.id, [
          { addressKey: 'a@x.test', result: greylisted('a@x.test'), retryAt: at(60) },
        ]);
        await lists.saveResults(list.id, [
          { addressKey: 'b@x.test', result: verificationResult('b@x.test') },
        ]);
        await lists.recount(list.id);
        const now = await lists.getList(list.id);
        assert.deepEqual(now?.counts, {
          total: 3,
          unique: 2,
          processed: 1,
          byStatus: { ...zeroCounts(), VALID: 1 },
        });
        assert.equal(now?.processedAddresses, 1);
      });

      it('gives rows in upload order, with duplicates, round-tripped fields, a status filter and paging', async () => {
        const key = await newKey();
        const header = ['email', 'name', 'note'];
        const rows = [
          row(1, 'ann@example.test', ['ann@example.test', 'Änne Ümlaut', 'says "hi", then leaves']),
          row(2, 'bob@example.test', ['bob@example.test', '', '']),
          row(3, 'ann@EXAMPLE.test', ['ann@EXAMPLE.test', 'Ann, again', '\n multi\r\nline ']),
          row(4, 'cy@other.test', ['cy@other.test', '山田', "😀 \\ backslash ' quote"]),
          row(5, 'dee@other.test', ['dee@other.test', 'Dee', 'tab\there', '', 'extra cells']),
          row(6, 'bob@example.test', ['bob@example.test', 'Bob', '=1+1']),
        ];
        const list = await upload(key, [rows.slice(0, 4), rows.slice(4)], {
          list: { source: 'csv', header },
        });
        assert.deepEqual(list.header, header);
        const annResult = verificationResult('ann@example.test', 'VALID', {
          checks: {
            ...verificationResult('ann@example.test').checks,
            suggestions: ['änn@exämple.test', 'ann@example.com'],
            free_provider: true,
          },
        });
        const bobResult = verificationResult('bob@example.test', 'INVALID');
        await lists.saveResults(list.id, [
          { addressKey: 'ann@example.test', result: annResult },
          { addressKey: 'bob@example.test', result: bobResult },
        ]);
        await lists.deferAddresses(list.id, [
          { addressKey: 'cy@other.test', result: greylisted('cy@other.test'), retryAt: at(60) },
        ]);

        const all = await lists.resultRows(list.id, 0, 100);
        assert.deepEqual(all, [
          { rowNumber: 1, email: 'ann@example.test', fields: rows[0]!.fields, result: annResult },
          { rowNumber: 2, email: 'bob@example.test', fields: rows[1]!.fields, result: bobResult },
          {
            rowNumber: 3,
            email: 'ann@EXAMPLE.test',
            fields: rows[2]!.fields,
            result: { ...annResult, email: 'ann@EXAMPLE.test' },
          },
          { rowNumber: 4, email: 'cy@other.test', fields: rows[3]!.fields, result: null },
          { rowNumber: 5, email: 'dee@other.test', fields: rows[4]!.fields, result: null },
          { rowNumber: 6, email: 'bob@example.test', fields: rows[5]!.fields, result: bobResult },
        ]);

        const numbers = async (afterRow: number, limit: number, statuses?: Status[]) =>
          (await lists.resultRows(list.id, afterRow, limit, statuses)).map((one) => one.rowNumber);
        assert.deepEqual(await numbers(0, 100, ['VALID']), [1, 3]);
        assert.deepEqual(await numbers(0, 100, ['INVALID', 'VALID']), [1, 2, 3, 6]);
        // The deferred address's provisional status is no result yet.
        assert.deepEqual(await numbers(0, 100, ['PROBABLY_VALID']), []);
        assert.deepEqual(await numbers(0, 100, ['DISPOSABLE']), []);
        assert.deepEqual(await numbers(1, 1, ['VALID']), [3]);
        assert.deepEqual(await numbers(3, 100, ['VALID']), []);
        const paged: number[] = [];
        for (let afterRow = 0; ; ) {
          const page = await lists.resultRows(list.id, afterRow, 4);
          if (page.length === 0) break;
          assert.ok(page.length <= 4);
          paged.push(...page.map((one) => one.rowNumber));
          afterRow = page.at(-1)!.rowNumber;
        }
        assert.deepEqual(paged, [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(await numbers(6, 100), []);

        // The results table's pages: by offset, the same rows as the walk above.
        const pageAt = async (offset: number, limit: number, filter: ResultFilter = {}) =>
          (await lists.resultRowsAt(list.id, offset, limit, filter)).map((one) => one.rowNumber);
        assert.deepEqual(await lists.resultRowsAt(list.id, 0, 100, {}), all);
        assert.deepEqual(await pageAt(2, 2), [3, 4]);
        assert.deepEqual(await pageAt(4, 10), [5, 6]);
        assert.deepEqual(await pageAt(6, 10), []);
        assert.deepEqual(await pageAt(1, 2, { statuses: ['VALID', 'INVALID'] }), [2, 3]);
        assert.equal(await lists.countResultRows(list.id, {}), 6);
        assert.equal(await lists.countResultRows(list.id, { statuses: ['VALID', 'INVALID'] }), 4);
        assert.equal(await lists.countResultRows(list.id, { statuses: ['PROBABLY_VALID'] }), 0);
        assert.equal(await lists.countResultRows('lst_none', {}), 0);
        assert.deepEqual(await lists.resultRowsAt('lst_none', 0, 10, {}), []);
        const found = async (search: string, statuses?: Status[]) => {
          const filter = { search, statuses };
          const rowsFound = await pageAt(0, 100, filter);
          assert.equal(
            await lists.countResultRows(list.id, filter),
            rowsFound.length,
            `count of "${search}"`,
          );
          return rowsFound;
        };
        // A substring anywhere in the address, letters compared without case.
        assert.deepEqual(await found('ann@'), [1, 3]);
        assert.deepEqual(await found('EXAMPLE.TEST'), [1, 2, 3, 6]);
        assert.deepEqual(await found('other'), [4, 5]);
        assert.deepEqual(await found('example', ['INVALID']), [2, 6]);
        assert.deepEqual(await found('nobody'), []);
        assert.deepEqual(await pageAt(1, 1, { search: 'example' }), [2]);
      });

      it('searches addresses for LIKE’s wildcards and escape as plain characters', async () => {
        const key = await newKey();
        const emails = ['a%b@x.test', 'axb@x.test', 'c_d@x.test', 'cxd@x.test', 'e!f@x.test', 'e\\f@x.test'];
        const list = await upload(key, [rowsOf(emails)]);
        const found = async (search: string) =>
          (await lists.resultRowsAt(list.id, 0, 10, { search })).map((one) => one.email);
        assert.deepEqual(await found('%'), ['a%b@x.test']);
        assert.deepEqual(await found('a%b'), ['a%b@x.test']);
        assert.deepEqual(await found('_'), ['c_d@x.test']);
        assert.deepEqual(await found('c_d'), ['c_d@x.test']);
        assert.deepEqual(await found('!'), ['e!f@x.test']);
        assert.deepEqual(await found('!f'), ['e!f@x.test']);
        assert.deepEqual(await found('\\'), ['e\\f@x.test']);
        assert.deepEqual(await found("'"), []);
        assert.equal(await lists.countResultRows(list.id, { search: '%' }), 1);
        assert.equal(await lists.countResultRows(list.id, { search: 'X.TEST' }), 6);
      });

      it('gives JSON uploads’ rows without fields', async () => {
        const key = await newKey();
        const annResult = verificationResult('ann@example.test', 'VALID');
        // JSON uploads have no fields.
        const json = await upload(key, [rowsOf(['ann@example.test'])]);
        await lists.saveResults(json.id, [{ addressKey: 'ann@example.test', result: annResult }]);
        assert.deepEqual(await lists.resultRows(json.id, 0, 10), [
          { rowNumber: 1, email: 'ann@example.test', fields: null, result: annResult },
        ]);
      });
    });

    describe('webhook deliveries', () => {
      let list: ListRecord;
      before(async () => {
        list = await upload(await newKey(), [rowsOf(['a@x.test'])]);
      });
      const delivery = (overrides: Partial<Omit<WebhookDelivery, 'attempts'>> = {}) => ({
        id: `whd_${randomUUID()}`,
        listId: list.id,
        url: 'https://hooks.example.test/lists?token=abc',
        event: 'list.completed',
        body: JSON.stringify({ event: 'list.completed', list: { id: list.id, name: 'Lëads' } }),
        createdAt: iso(0),
        ...overrides,
      });
      /** Claims, keeping only this case's deliveries (claims see every list's). */
      const claim = async (ids: readonly string[], now: Date, leaseUntil: Date, limit = 100, on = store) =>
        (await on.lists.claimWebhookDeliveries(now, leaseUntil, limit)).filter((one) => ids.includes(one.id));
      /** Gives up this case's deliveries, so no later case claims them. */
      const retire = async (ids: readonly string[]) => {
        for (const id of ids) {
          await lists.recordWebhookAttempt(id, {
            deliveredAt: null,
            nextAttemptAt: null,
            error: 'test over',
          });
        }
      };

      it('adds a delivery once per id', async () => {
        const first = delivery();
        await lists.addWebhookDelivery(first, at(0));
        await lists.addWebhookDelivery(
          { ...first, body: '{"other":true}', url: 'https://elsewhere.test' },
          at(0),
        );
        assert.deepEqual(await claim([first.id], at(1), at(61)), [{ ...first, attempts: 1 }]);
        assert.equal(await count('webhook_deliveries', list.id), 1);
        await retire([first.id]);
      });

      it('claims only due deliveries, earliest first, and leases them', async () => {
        const [one, two, three] = [delivery(), delivery(), delivery()];
        await lists.addWebhookDelivery(one, at(10));
        await lists.addWebhookDelivery(two, at(20));
        await lists.addWebhookDelivery(three, at(30));
        const ids = [one.id, two.id, three.id];
        assert.deepEqual(await claim(ids, at(5), at(65)), []);
        assert.deepEqual(await claim(ids, at(20), at(80)), [
          { ...one, attempts: 1 },
          { ...two, attempts: 1 },
        ]);
        // Leased: not claimed again before the lease ends.
        assert.deepEqual(await claim(ids, at(40), at(100)), [{ ...three, attempts: 1 }]);
        assert.deepEqual(await claim(ids, at(79), at(139)), []);
        assert.deepEqual(await claim(ids, at(79), at(139), 100, second), []);
        // A lease that ran out (its worker died) makes the delivery due again.
        const again = await claim(ids, at(80), at(140));
        assert.deepEqual(sorted(again.map((d) => d.id)), sorted([one.id, two.id]));
        assert.ok(again.every((d) => d.attempts === 2));
        await retire(ids);

        const due = [delivery(), delivery(), delivery()];
        for (const [i, each] of due.entries()) await lists.addWebhookDelivery(each, at(200 + i));
        const dueIds = due.map((each) => each.id);
        const limited = await store.lists.claimWebhookDeliveries(at(300), at(360), 2);
        assert.deepEqual(
          limited.map((d) => d.id),
          dueIds.slice(0, 2),
        );
        await retire(dueIds);
      });

      it('never claims a delivered or given-up delivery; claims a retry at its time', async () => {
        const [delivered, retried, givenUp] = [delivery(), delivery(), delivery({ event: 'list.failed' })];
        const ids = [delivered.id, retried.id, givenUp.id];
        for (const each of [delivered, retried, givenUp]) await lists.addWebhookDelivery(each, at(0));
        assert.equal((await claim(ids, at(0), at(60))).length, 3);
        await lists.recordWebhookAttempt(delivered.id, {
          deliveredAt: at(1),
          nextAttemptAt: null,
          error: null,
        });
        await lists.recordWebhookAttempt(retried.id, {
          deliveredAt: null,
          nextAttemptAt: at(300),
          error: 'HTTP 503',
        });
        await lists.recordWebhookAttempt(givenUp.id, {
          deliveredAt: null,
          nextAttemptAt: null,
          error: 'HTTP 410',
        });
        assert.deepEqual(await claim(ids, at(100), at(160)), []);
        assert.deepEqual(await claim(ids, at(299), at(359)), []);
        assert.deepEqual(await claim(ids, at(300), at(360)), [{ ...retried, attempts: 2 }]);
        await lists.recordWebhookAttempt(retried.id, {
          deliveredAt: at(301),
          nextAttemptAt: null,
          error: null,
        });
        assert.deepEqual(
          await claim(ids, new Date('2098-01-01T00:00:00.000Z'), new Date('2098-01-01T00:01:00.000Z')),
          [],
        );
        const stored = await target.query(
          `select id, delivered_at, last_error from webhook_deliveries where list_id = '${list.id}'`,
        );
        const byId = new Map(stored.map((one) => [one.id, [one.delivered_at, one.last_error]]));
        assert.deepEqual(byId.get(delivered.id), [iso(1), null]);
        assert.deepEqual(byId.get(retried.id), [iso(301), null]);
        assert.deepEqual(byId.get(givenUp.id), [null, 'HTTP 410']);
      });

      it('never gives one delivery to two claims racing on two instances', async () => {
        const due = Array.from({ length: 30 }, () => delivery());
        for (const each of due) await lists.addWebhookDelivery(each, at(1_000));
        const ids = due.map((each) => each.id);
        const claims = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            claim(ids, at(1_001), at(1_061), 5, i % 2 === 0 ? store : second),
          ),
        );
        const first = claims.flat();
        assert.equal(new Set(first.map((d) => d.id)).size, first.length, 'a delivery was claimed twice');
        assert.ok(first.every((d) => d.attempts === 1));
        const rest = await claim(ids, at(1_001), at(1_061));
        const all = [...first, ...rest].map((d) => d.id);
        assert.deepEqual(sorted(all), sorted(ids));
        await retire(ids);
      });
    });
  });
}

/** Runs each job in its own Node process; resolves with their outcomes, rejects if one fails. */
function runListChargeProcesses(jobs: ListChargeJob[]): Promise<ListChargeOutcome[]> {
  return runJsonProcesses<ListChargeOutcome>(PROCESS_SCRIPT, jobs, 'list store process');
}
