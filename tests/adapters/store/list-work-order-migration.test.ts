/**
 * Upgrading to addresses stored in work order (migration 0016): a list stored by the previous
 * release keeps its rows, its results (JSON text, read as before), its pending, deferred and
 * charged addresses, and carries on: the next charge, save and re-check find its addresses by their
 * new key, and deleting it leaves nothing. On SQLite, and on PostgreSQL when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { migrateToRelease, seedAccountWithKey, upgradeTests } from './previous-release.ts';
import { atMost } from './store-fixtures.ts';

const PREVIOUS_RELEASE = '0015-user-operators';
const AT = '2026-03-04T05:06:07.089Z';
const RETRY_AT = '2026-03-04T06:00:00.000Z';

function storedResult(email: string, status: string) {
  return {
    email,
    checks: { syntax: true, smtp: status === 'VALID' ? 'deliverable' : 'undeliverable' },
    score: status === 'VALID' ? 95 : 5,
    status,
    reason: status === 'VALID' ? 'accepted' : 'mailbox_not_found',
  };
}

async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<void> {
  await migrateToRelease(db, PREVIOUS_RELEASE, schema);
  await seedAccountWithKey(db, AT);
  await sql`INSERT INTO lists (id, account_id, api_key_id, name, state, source, total_rows, unique_addresses,
      processed_rows, processed_addresses, count_valid, created_at, updated_at, started_at)
    VALUES ('lst_old', 'acct', 'key', 'Old', 'running', 'json', 5, 4, 1, 1, 1, ${AT}, ${AT}, ${AT})`.execute(
    db,
  );
  // Rows in upload order; row 5 repeats row 2's address.
  const rows: Array<[number, string, string]> = [
    [1, 'done@b.test', 'done@b.test'],
    [2, 'Later@A.test', 'Later@a.test'],
    [3, 'waits@c.test', 'waits@c.test'],
    [4, 'charged@a.test', 'charged@a.test'],
    [5, 'later@a.test', 'Later@a.test'],
  ];
  for (const [n, email, key] of rows) {
    await sql`INSERT INTO list_rows (list_id, row_number, email, address_key, fields)
      VALUES ('lst_old', ${n}, ${email}, ${key}, null)`.execute(db);
  }
  const addresses: Array<[string, string, number, number, Record<string, unknown>]> = [
    ['done@b.test', 'b.test', 1, 1, { charged: 1, charged_month: '2026-03', done: 1, status: 'VALID' }],
    ['Later@a.test', 'a.test', 2, 2, {}],
    [
      'waits@c.test',
      'c.test',
      3,
      1,
      { charged: 1, charged_month: '2026-03', attempts: 1, retry_at: RETRY_AT },
    ],
    ['charged@a.test', 'a.test', 4, 1, { charged: 1, charged_month: '2026-02' }],
  ];
  for (const [key, domain, firstRow, count, state] of addresses) {
    const result =
      state.status === 'VALID'
        ? JSON.stringify(storedResult(key, 'VALID'))
        : state.retry_at
          ? JSON.stringify(storedResult(key, 'UNKNOWN'))
          : null;
    await sql`INSERT INTO list_addresses (list_id, address_key, first_row, email, domain, row_count, charged,
        charged_month, done, attempts, retry_at, status, result)
      VALUES ('lst_old', ${key}, ${firstRow}, ${key}, ${domain}, ${count}, ${state.charged ?? 0},
        ${state.charged_month ?? null}, ${state.done ?? 0}, ${state.attempts ?? 0}, ${state.retry_at ?? null},
        ${state.status ?? (state.retry_at ? 'UNKNOWN' : null)}, ${result})`.execute(db);
  }
}

async function checkUpgrade(options: StoreOptions): Promise<void> {
  const store = await openStore({ ...options, plans: BUILT_IN_PLANS });
  try {
    const { lists } = store;
    // The results read as before: row 1's stored JSON, nothing yet for the others.
    const rows = await lists.resultRows('lst_old', 0, 10);
    assert.deepEqual(
      rows.map((row) => [row.rowNumber, row.email, row.result?.status ?? null]),
      [
        [1, 'done@b.test', 'VALID'],
        [2, 'Later@A.test', null],
        [3, 'waits@c.test', null],
        [4, 'charged@a.test', null],
        [5, 'later@a.test', null],
      ],
    );
    // Pending in work order (domain, then key); the deferred one waits for its re-check.
    const pending = await lists.pendingAddresses('lst_old', null, 10);
    assert.deepEqual(
      pending.map((one) => [one.addressKey, one.firstRow, one.rowCount, one.charged]),
      [
        ['Later@a.test', 2, 2, false],
        ['charged@a.test', 4, 1, true],
      ],
    );
    assert.equal(await lists.nextRecheckAt('lst_old'), RETRY_AT);
    assert.deepEqual(
      (await lists.dueRechecks('lst_old', new Date(RETRY_AT), 10)).map((one) => one.addressKey),
      ['waits@c.test'],
    );
    assert.deepEqual(await lists.inFlightCharges('lst_old'), ['charged@a.test']);

    // The list carries on: a charge, then a save, find the old addresses by their new key.
    const charge = {
      accountId: 'acct',
      keyId: 'key',
      month: '2026-03' as const,
      ceiling: atMost(100),
    };
    const charged = await lists.chargeAddresses('lst_old', ['Later@a.test', 'charged@a.test'], charge);
    assert.deepEqual(charged.charged, ['Later@a.test']);
    await lists.saveResults('lst_old', [
      { addressKey: 'Later@a.test', result: storedResult('Later@a.test', 'INVALID') as never },
    ]);
    const after = await lists.resultRows('lst_old', 1, 1);
    assert.equal(after[0]?.result?.status, 'INVALID');
    assert.equal((await lists.resultRows('lst_old', 4, 1))[0]?.result?.email, 'later@a.test');
    const list = await lists.getList('lst_old');
    assert.equal(list?.counts.processed, 3);
    assert.equal(list?.processedAddresses, 2);
    // An uncharge gives a unit back to the month it was charged in (February's stays February's).
    await lists.unchargeAddresses('lst_old', ['charged@a.test'], charge);
    assert.deepEqual(await lists.inFlightCharges('lst_old'), []);

    await lists.deleteList('lst_old');
    assert.equal(await lists.getList('lst_old'), null);
    assert.deepEqual(await lists.resultRows('lst_old', 0, 10), []);
    assert.deepEqual(await lists.pendingAddresses('lst_old', null, 10), []);
  } finally {
    await store.close();
  }
}

describe('migration 0016: lists stored by the previous release carry on in work order', () =>
  upgradeTests(seedPreviousRelease, checkUpgrade));
