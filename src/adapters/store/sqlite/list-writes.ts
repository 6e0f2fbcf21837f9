/**
 * The list-job writes that SQLite runs as synchronous statements in the store's write batcher:
 * storing a batch of uploaded rows or addresses, charging a batch of addresses and saving a group
 * of results (in the compact form of result-codec.ts). Each is one transaction (all of it
 * commits or none does), and a batch of them shares one commit, where Kysely would commit every
 * statement on its own: a list of 100,000 addresses is ~1,000 commits instead of ~100,000.
 * The SQL is that of postgres/list-writes.ts, run synchronously.
 */
import type Database from 'better-sqlite3';
import {
  type AddressCharge,
  LIVE_LIST_STATES,
  type ListStore,
  type UploadedAddress,
  type UploadedRow,
} from '../../../lists/ports.ts';
import { monthOf } from '../../../usage/months.ts';
import { domainOfKey } from '../../../usage/verification-service.ts';
import type { VerificationResult } from '../../../verification/report.ts';
import { assertCharge } from '../kysely-store.ts';
import { countColumnOf, STATUS_COUNT_COLUMNS } from '../list-rows.ts';
import { encodeResult } from '../result-codec.ts';
import type { SqliteCharges } from './charges.ts';
import type { WriteBatcher } from './write-batcher.ts';

// Every address is found by its key (list, domain, address): see domainOfKey.
const MARK_CHARGED =
  'update list_addresses set charged = 1, charged_month = ? where list_id = ? and domain = ? and address_key = ? and charged = 0';
// The month stays: it is read only while charged, and rewriting it in place keeps the row's size.
const UNMARK_CHARGED =
  'update list_addresses set charged = 0 where list_id = ? and domain = ? and address_key = ?';
// `done = 0`: a second save of an address (a re-run after a crash) changes and counts nothing.
const SAVE_RESULT = `
  update list_addresses set done = 1, retry_at = null, status = ?, result = ?
   where list_id = ? and domain = ? and address_key = ? and done = 0
  returning row_count`;
const TOUCH_LIST = 'update lists set updated_at = ? where id = ?';
const LIST_STATE = 'select state from lists where id = ?';
const INSERT_ROW =
  'insert into list_rows (list_id, row_number, email, domain, address_key, fields) values (?, ?, ?, ?, ?, ?)';
// An address stored before keeps its first row (and the email as that row wrote it); rows add up.
const UPSERT_ADDRESS = `
  insert into list_addresses (list_id, domain, address_key, first_row, email, row_count, charged_month)
  values (?, ?, ?, ?, ?, ?, ?)
  on conflict (list_id, domain, address_key) do update set
    row_count = list_addresses.row_count + excluded.row_count,
    email = case when excluded.first_row < list_addresses.first_row then excluded.email else list_addresses.email end,
    first_row = min(list_addresses.first_row, excluded.first_row)`;
const ADD_COUNTS = `
  update lists set processed_rows = processed_rows + @rows, processed_addresses = processed_addresses + @addresses,
    ${STATUS_COUNT_COLUMNS.map((column) => `${column} = ${column} + @${column}`).join(', ')}
   where id = @listId`;

/** `chargeAddresses` and `saveResults` for SQLite, run in `writes`. */
export function sqliteListWrites(
  connection: Database.Database,
  writes: WriteBatcher,
  charges: SqliteCharges,
): Pick<ListStore, 'addRows' | 'addAddresses' | 'chargeAddresses' | 'saveResults'> {
  const touchList = connection.prepare(TOUCH_LIST);
  const insertRow = connection.prepare(INSERT_ROW);
  const upsertAddress = connection.prepare(UPSERT_ADDRESS);
  const markCharged = connection.prepare(MARK_CHARGED);
  const unmarkCharged = connection.prepare(UNMARK_CHARGED);
  const saveResult = connection.prepare(SAVE_RESULT);
  const addCounts = connection.prepare(ADD_COUNTS);
  const listState = connection.prepare(LIST_STATE);
  // A paused or cancelled list is charged and saved nothing more: checked in the write's own
  // transaction, so nothing moves once the pause or cancel was acknowledged.
  const isLive = (listId: string): boolean => {
    const row = listState.get(listId) as { state: string } | undefined;
    return row !== undefined && (LIVE_LIST_STATES as readonly string[]).includes(row.state);
  };
  return {
    // A batch of uploaded rows in one transaction: no statement to compile, one commit.
    addRows: (listId: string, rows: readonly UploadedRow[], now: Date) =>
      writes.run(() => {
        // A live upload shows progress, so the stale-upload sweep never takes it for a dead one.
        touchList.run(now.toISOString(), listId);
        for (const row of rows) {
          const fields = row.fields === null ? null : JSON.stringify(row.fields);
          insertRow.run(listId, row.rowNumber, row.email, row.domain, row.addressKey, fields);
        }
      }),
    addAddresses: (listId: string, addresses: readonly UploadedAddress[], now: Date) =>
      writes.run(() => {
        touchList.run(now.toISOString(), listId);
        const month = monthOf(now);
        for (const address of addresses) {
          upsertAddress.run(
            listId,
            address.domain,
            address.addressKey,
            address.firstRow,
            address.email,
            address.rowCount,
            month,
          );
        }
      }),
    // Marks the addresses not yet charged, charges the quota for them, and unmarks those the
    // quota could not cover.
    chargeAddresses: (listId: string, addressKeys: readonly string[], charge: AddressCharge) =>
      writes.run(() => {
        assertCharge(0, charge.ceiling);
        if (!isLive(listId)) {
          return {
            charged: [],
            used: charges.used(charge, charge.month).verifications,
            stopped: true as const,
          };
        }
        const marked = [...new Set(addressKeys)].filter(
          (key) => markCharged.run(charge.month, listId, domainOfKey(key), key).changes > 0,
        );
        const grant = charges.verifications(charge, charge.month, marked.length, charge.ceiling);
        for (const key of marked.slice(grant.granted)) unmarkCharged.run(listId, domainOfKey(key), key);
        return { charged: marked.slice(0, grant.granted), used: grant.used };
      }),
    saveResults: (
      listId: string,
      results: ReadonlyArray<{ addressKey: string; result: VerificationResult }>,
    ) =>
      writes.run(() => {
        if (!isLive(listId)) return;
        const counts: Record<string, number | string> = { listId, rows: 0, addresses: 0 };
        for (const column of STATUS_COUNT_COLUMNS) counts[column] = 0;
        for (const { addressKey, result } of results) {
          const saved = saveResult.get(
            result.status,
            encodeResult(result),
            listId,
            domainOfKey(addressKey),
            addressKey,
          ) as { row_count: number } | undefined;
          if (saved === undefined) continue;
          const column = countColumnOf(result.status);
          counts[column] = (counts[column] as number) + saved.row_count;
          counts.rows = (counts.rows as number) + saved.row_count;
          counts.addresses = (counts.addresses as number) + 1;
        }
        if (counts.addresses !== 0) addCounts.run(counts);
      }),
  };
}
