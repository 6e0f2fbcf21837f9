/**
 * The audit log: one row per change in an account, appended and never updated. The primary key
 * (account, id) serves an account's pages newest first (ids sort by time: audit/entry-id.ts); the
 * action index serves the same pages filtered by action; the `at` index serves the expiry, which
 * deletes the oldest entries of every account in batches. `details` is JSON text; `at` ISO-8601
 * UTC with milliseconds. No foreign key to the account: an entry outlives what it names, up to its
 * 400 days. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `audit_log` and its indexes. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('account_id', 'text', (col) => col.notNull())
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('actor_type', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'text', (col) => col.notNull())
    .addColumn('actor_label', 'text', (col) => col.notNull())
    .addColumn('ip', 'text')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target_type', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text', (col) => col.notNull())
    .addColumn('details', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('audit_log_pk', ['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_log_action_idx')
    .on('audit_log')
    .columns(['account_id', 'action', 'id'])
    .execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
