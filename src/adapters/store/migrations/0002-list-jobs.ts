/**
 * List jobs: the list, its uploaded rows, its unique addresses with their results, and
 * the webhook deliveries of finished lists. Portable DDL, as 0001.
 *
 * Rows and addresses are separate because a list is verified per unique address (charged once,
 * verified once) but answered per row, in upload order: a duplicate row repeats its address's
 * result. Rows point at their address by `address_key`, the normalized identity of the address.
 */
import type { Kysely } from 'kysely';

/** Per-status counters of a list, one column per public status (rows, not addresses). */
const STATUS_COUNT_COLUMNS = [
  'count_valid',
  'count_probably_valid',
  'count_invalid',
  'count_invalid_syntax',
  'count_invalid_domain',
  'count_no_mx_records',
  'count_disposable',
  'count_role_based',
] as const;

/** Creates `lists`, `list_rows`, `list_addresses` and `webhook_deliveries`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  let lists = db.schema
    .createTable('lists')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text', (col) => col.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    // uploading (hidden until the upload is whole), queued, running, paused, completed, failed, cancelled
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull())
    // The CSV header as a JSON array of strings (the uploaded one or a synthetic one); null for JSON.
    .addColumn('header', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('total_rows', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('unique_addresses', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('processed_rows', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('processed_addresses', 'bigint', (col) => col.notNull().defaultTo(0));
  for (const column of STATUS_COUNT_COLUMNS) {
    lists = lists.addColumn(column, 'bigint', (col) => col.notNull().defaultTo(0));
  }
  await lists
    // Why a list stopped early: user (paused by its owner), quota (monthly quota used up).
    .addColumn('pause_reason', 'text')
    .addColumn('message', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('lists_account_created_idx')
    .on('lists')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('lists_state_idx').on('lists').column('state').execute();

  await db.schema
    .createTable('list_rows')
    .addColumn('list_id', 'text', (col) => col.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('row_number', 'bigint', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('address_key', 'text', (col) => col.notNull())
    // The whole CSV row as a JSON array of cells (kept for the results file); null for JSON uploads.
    .addColumn('fields', 'text')
    .addPrimaryKeyConstraint('list_rows_pk', ['list_id', 'row_number'])
    .execute();

  await db.schema
    .createTable('list_addresses')
    .addColumn('list_id', 'text', (col) => col.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('address_key', 'text', (col) => col.notNull())
    // The row number of the address's first row: its place in the list.
    .addColumn('first_row', 'bigint', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('row_count', 'bigint', (col) => col.notNull())
    // 1 once the account's quota was charged for this address: never charged twice, restarts included.
    .addColumn('charged', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    // Set while a provisional result (greylisted, our DNS failing) waits to be checked again.
    .addColumn('retry_at', 'text')
    .addColumn('status', 'text')
    .addColumn('result', 'text')
    .addPrimaryKeyConstraint('list_addresses_pk', ['list_id', 'address_key'])
    .execute();
  // The runner walks the pending addresses grouped by domain, so one domain's addresses share SMTP sessions.
  await db.schema
    .createIndex('list_addresses_pending_idx')
    .on('list_addresses')
    .columns(['list_id', 'done', 'domain', 'first_row'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('list_id', 'text', (col) => col.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    // The body is fixed when the event happens, so every retry sends the same bytes.
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .execute();
}

/** Drops the list tables. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('list_addresses').execute();
  await db.schema.dropTable('list_rows').execute();
  await db.schema.dropTable('lists').execute();
}
