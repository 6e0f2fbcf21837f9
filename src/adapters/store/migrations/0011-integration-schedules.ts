/**
 * Schedules of integration runs: a cron expression and time zone, the run's choices
 * (`statuses` and `write_back` as JSON text; `write_back` null for dry runs), and `next_run_at`,
 * the slot due next, which processes claim with a conditional UPDATE (null while paused).
 * `paused` is 0 or 1. Removed with the integration and with the account. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `integration_schedules`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_schedules')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('integration_id', 'text', (col) =>
      col.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('audience_id', 'text', (col) => col.notNull())
    .addColumn('cron', 'text', (col) => col.notNull())
    .addColumn('timezone', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('stale_days', 'integer', (col) => col.notNull())
    .addColumn('statuses', 'text', (col) => col.notNull())
    .addColumn('write_back', 'text')
    .addColumn('paused', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_run_at', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_run_id', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('integration_schedules_integration_idx')
    .on('integration_schedules')
    .columns(['integration_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('integration_schedules_due_idx')
    .on('integration_schedules')
    .column('next_run_at')
    .execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integration_schedules').execute();
}
