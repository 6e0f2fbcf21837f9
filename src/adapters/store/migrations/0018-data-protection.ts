/**
 * Data protection: an account's own retention of finished lists' results (`retention_days`; null:
 * the server's default, MAILVET_RETENTION_DAYS), and on each list when its results expired
 * (`results_expired_at`): the list stays as a record with its counts, its rows and addresses go.
 * Portable DDL. SQLite's switch to incremental auto-vacuum needs a VACUUM, which cannot run in the
 * migration's transaction: the store opening the file does it (`sqlite/auto-vacuum.ts`).
 */
import type { Kysely } from 'kysely';

/** Adds the two columns. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('retention_days', 'integer').execute();
  await db.schema.alterTable('lists').addColumn('results_expired_at', 'text').execute();
}

/** Drops them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('lists').dropColumn('results_expired_at').execute();
  await db.schema.alterTable('accounts').dropColumn('retention_days').execute();
}
