/**
 * The list writes of PostgreSQL, each one Kysely transaction (SQLite's are in
 * `sqlite/list-writes.ts`, on the same tables):
 * - `chargeAddresses`: the addresses are marked first: the UPDATE locks their rows, so a concurrent
 *   charge of the same addresses waits, then finds them marked and charges nothing for them. The
 *   quota is charged for exactly the rows this transaction marked, and the marks the quota could
 *   not cover are taken back before the commit.
 * - `saveResults`: first holds the list's row, so a pause or cancel either waits for this save or
 *   is seen by it (and then nothing is saved).
 * - `addRows` and `addAddresses`: rows, and an upload's unique addresses, each batch one statement
 *   of arrays (`unnest`) that also touches the list (its `updated_at`, in a WITH).
 */
import { type Kysely, type QueryCreator, sql } from 'kysely';
import type { AddressCharge, UploadedAddress, UploadedRow } from '../../../lists/ports.ts';
import { monthOf } from '../../../usage/months.ts';
import type { Used } from '../../../usage/ports.ts';
import { domainOfKey } from '../../../usage/verification-service.ts';
import type { Status, VerificationResult } from '../../../verification/report.ts';
import type { ListWrites } from '../kysely-list-store.ts';
import { holdLiveList } from '../list-liveness.ts';
import { addressKeysAny, type CountColumn, countColumnOf } from '../list-rows.ts';
import { encodeResult } from '../result-codec.ts';
import type { DatabaseSchema } from '../schema.ts';
import { verificationsUsed } from '../usage-queries.ts';
import { chargeVerificationRows } from './charges.ts';

/** The list writes on `db`. */
export function postgresListWrites(db: Kysely<DatabaseSchema>): ListWrites {
  return {
    chargeAddresses: chargeAddresses(db),
    addRows: (listId, rows, now) => addRows(db, listId, rows, now),
    addAddresses: (listId, addresses, now, merge) => addAddresses(db, listId, addresses, now, merge),
    saveResults: (listId, results) =>
      db.transaction().execute(async (trx) => {
        if (!(await holdLiveList(trx, listId))) return;
        await saveResults(trx, listId, results);
      }),
  };
}

/** Charges a batch of a list's addresses in one transaction on `db`. */
function chargeAddresses(db: Kysely<DatabaseSchema>) {
  return (
    listId: string,
    addressKeys: readonly string[],
    charge: AddressCharge,
  ): Promise<{ charged: string[]; used: Used; stopped?: true }> =>
    db.transaction().execute(async (trx) => {
      // Holding the list's row: a pause or cancel waits for this charge, or this charge sees it and
      // charges nothing, so nothing is charged once the pause or cancel was acknowledged.
      if (!(await holdLiveList(trx, listId))) {
        return {
          charged: [],
          used: await verificationsUsed(trx, charge, charge.month),
          stopped: true as const,
        };
      }
      if (addressKeys.length > 0) {
        // Lock the rows in one global order (by their key) before marking them. The UPDATE alone locks
        // them in its plan's order (index order for a short key list, heap order for a long one),
        // so concurrent charges of overlapping batches deadlocked (found by the list store contract).
        await trx
          .selectFrom('list_addresses')
          .select('address_key')
          .where('list_id', '=', listId)
          .where(addressKeysAny(addressKeys))
          .orderBy('domain')
          .orderBy('address_key')
          .forUpdate()
          .execute();
      }
      const marked =
        addressKeys.length === 0
          ? []
          : await trx
              .updateTable('list_addresses')
              .set({ charged: 1, charged_month: charge.month })
              .where('list_id', '=', listId)
              .where(addressKeysAny(addressKeys))
              .where('charged', '=', 0)
              .returning('address_key')
              .execute();
      const markedKeys = new Set(marked.map((row) => row.address_key));
      // Deduplicated: a key named twice would otherwise be charged (and reported) twice, while the
      // UPDATE marked its row only once (SQLite's chargeAddressesSync charges it once).
      const inOrder = [...new Set(addressKeys)].filter((key) => markedKeys.has(key));
      const grant = await chargeVerificationRows(trx, charge, charge.month, inOrder.length, charge.ceiling);
      const uncovered = inOrder.slice(grant.granted);
      if (uncovered.length > 0) {
        await trx
          .updateTable('list_addresses')
          .set({ charged: 0 })
          .where('list_id', '=', listId)
          .where(addressKeysAny(uncovered))
          .execute();
      }
      return { charged: inOrder.slice(0, grant.granted), used: grant.used };
    });
}

/** A live upload shows progress, so the stale-upload sweep never takes it for a dead one. */
function touchList(db: QueryCreator<DatabaseSchema>, listId: string, now: Date) {
  return db.updateTable('lists').set({ updated_at: now.toISOString() }).where('id', '=', listId);
}

async function addRows(
  db: Kysely<DatabaseSchema>,
  listId: string,
  rows: readonly UploadedRow[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) {
    await touchList(db, listId, now).execute();
    return;
  }
  // One statement, a column an array: what PostgreSQL parses and plans no longer grows with the
  // rows, and no batch meets its bound on parameters per statement. The list's touch rides along
  // in it (one commit, one round trip).
  const column = <T>(value: (row: UploadedRow) => T) => rows.map(value);
  await db
    .with('touched', (db) => touchList(db, listId, now))
    .insertInto('list_rows')
    .columns(['list_id', 'row_number', 'email', 'domain', 'address_key', 'fields'])
    .expression(
      sql`select ${listId}, * from unnest(
        ${column((row) => row.rowNumber)}::bigint[],
        ${column((row) => row.email)}::text[],
        ${column((row) => row.domain)}::text[],
        ${column((row) => row.addressKey)}::text[],
        ${column((row) => (row.fields === null ? null : JSON.stringify(row.fields)))}::text[])`,
    )
    .execute();
}

async function addAddresses(
  db: Kysely<DatabaseSchema>,
  listId: string,
  addresses: readonly UploadedAddress[],
  now: Date,
  merge: boolean,
): Promise<void> {
  if (addresses.length === 0) {
    await touchList(db, listId, now).execute();
    return;
  }
  const month = monthOf(now);
  const column = <T>(value: (address: UploadedAddress) => T) => addresses.map(value);
  const insert = db
    .with('touched', (db) => touchList(db, listId, now))
    .insertInto('list_addresses')
    .columns(['list_id', 'charged_month', 'domain', 'address_key', 'first_row', 'email', 'row_count'])
    .expression(
      sql`select ${listId}, ${month}, * from unnest(
        ${column((address) => address.domain)}::text[],
        ${column((address) => address.addressKey)}::text[],
        ${column((address) => address.firstRow)}::bigint[],
        ${column((address) => address.email)}::text[],
        ${column((address) => address.rowCount)}::bigint[])`,
    );
  // A plain insert when nothing can be there yet: ON CONFLICT probes the key before each insert and
  // logs a confirmation after it (5 MB of the 69 MB of WAL of a 100,000-row upload, and a tenth of its time).
  if (!merge) {
    await insert.execute();
    return;
  }
  await insert
    // An address stored before keeps its first row (and the email as that row wrote it).
    .onConflict((conflict) =>
      conflict.columns(['list_id', 'domain', 'address_key']).doUpdateSet({
        row_count: sql<number>`list_addresses.row_count + excluded.row_count`,
        email: sql<string>`case when excluded.first_row < list_addresses.first_row then excluded.email else list_addresses.email end`,
        first_row: sql<number>`least(list_addresses.first_row, excluded.first_row)`,
      }),
    )
    .execute();
}

async function saveResults(
  db: Kysely<DatabaseSchema>,
  listId: string,
  results: ReadonlyArray<{ addressKey: string; result: VerificationResult }>,
): Promise<void> {
  if (results.length === 0) return;
  // One statement for the whole group (a round trip per result was most of a list's time here),
  // its columns as arrays (`unnest`): as a VALUES list, a group of 250 was a thousand parameters and
  // a statement PostgreSQL parsed and planned anew each time. Results in their compact form.
  // `done = 0` makes a second save (a re-run after a crash) change nothing and count nothing; a key
  // named twice in one group is saved once, with its first result, as saving them in turn would.
  const unique = new Map<string, VerificationResult>();
  for (const { addressKey, result } of results) if (!unique.has(addressKey)) unique.set(addressKey, result);
  const keys = [...unique.keys()];
  const outcomes = [...unique.values()];
  const { rows: saved } = await sql<{ row_count: number; status: Status }>`
    update list_addresses a
       set done = 1, retry_at = null, status = v.status, result = v.result
      from unnest(
        ${keys.map(domainOfKey)}::text[],
        ${keys}::text[],
        ${outcomes.map((result) => result.status)}::text[],
        ${outcomes.map(encodeResult)}::bytea[]
      ) as v(domain, address_key, status, result)
     where a.list_id = ${listId} and a.domain = v.domain and a.address_key = v.address_key and a.done = 0
    returning a.row_count, a.status`.execute(db);
  const added = new Map<CountColumn, number>();
  let rows = 0;
  for (const { row_count, status } of saved) {
    const column = countColumnOf(status);
    const count = Number(row_count);
    added.set(column, (added.get(column) ?? 0) + count);
    rows += count;
  }
  if (saved.length === 0) return;
  const counters: Record<string, unknown> = {
    processed_rows: sql<number>`processed_rows + ${rows}`,
    processed_addresses: sql<number>`processed_addresses + ${saved.length}`,
  };
  for (const [column, count] of added) counters[column] = sql<number>`${sql.ref(column)} + ${count}`;
  await db.updateTable('lists').set(counters).where('id', '=', listId).execute();
}
