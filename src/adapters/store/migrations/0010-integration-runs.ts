/**
 * Runs of integrations: an audience read, verified as a list job and written back.
 * The row holds the whole state a worker needs to take a run up again (its phase, its list, how
 * far write-back got, the platform's write jobs still to count). `active_audience` is set only
 * while a run has not ended, and unique: one run at a time per audience, enforced by the database.
 * Removed with the integration; the list stays (it is the account's, with its own retention).
 * Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `integration_runs`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('integration_id', 'text', (col) =>
      col.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('audience_id', 'text', (col) => col.notNull())
    .addColumn('audience_name', 'text', (col) => col.notNull())
    .addColumn('active_audience', 'text')
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('schedule_id', 'text')
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('request', 'text', (col) => col.notNull())
    .addColumn('list_id', 'text')
    .addColumn('changed_since', 'text')
    .addColumn('read_at', 'text')
    .addColumn('members', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('written', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('write_errors', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('write_cursor', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('pending_jobs', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('categories', 'text')
    .addColumn('message', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('integration_runs_active_idx')
    .on('integration_runs')
    .column('active_audience')
    .unique()
    .execute();
  await db.schema
    .createIndex('integration_runs_integration_idx')
    .on('integration_runs')
    .columns(['integration_id', 'created_at'])
    .execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integration_runs').execute();
}
