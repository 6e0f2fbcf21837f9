/**
 * Fair list scheduling: `lists.not_before`, set while a list waits for its next re-check. Such a
 * list holds no worker slot and does not count toward its account's running lists; a worker takes
 * it up again once that time has passed. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Adds `lists.not_before` and an index for the per-account count of running lists. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('lists').addColumn('not_before', 'text').execute();
  await db.schema
    .createIndex('lists_account_state_idx')
    .on('lists')
    .columns(['account_id', 'state'])
    .execute();
}

/** Drops them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lists_account_state_idx').execute();
  await db.schema.alterTable('lists').dropColumn('not_before').execute();
}
