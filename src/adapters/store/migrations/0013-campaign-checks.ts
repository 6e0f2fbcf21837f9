/**
 * The last pre-campaign check of each integration, as its owner saw it (`result`: the check as
 * JSON text), so the Integrations page shows it again after a reload or on another device. One row
 * per integration, replaced by the next check; `verify_unverified` is 0 or 1. Removed with the
 * integration and with the account. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `campaign_checks`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('campaign_checks')
    .addColumn('integration_id', 'text', (col) =>
      col.primaryKey().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('campaign_id', 'text', (col) => col.notNull())
    .addColumn('verify_unverified', 'integer', (col) => col.notNull())
    .addColumn('result', 'text', (col) => col.notNull())
    .addColumn('checked_at', 'text', (col) => col.notNull())
    .execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('campaign_checks').execute();
}
