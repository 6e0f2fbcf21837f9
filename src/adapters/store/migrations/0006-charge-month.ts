/**
 * The month an address of a list was charged in: `list_addresses.charged_month`. A re-check or a
 * cancel may give the unit back weeks later, and it goes back to the month that was charged, not
 * to the month it happens in. Addresses charged before this migration have none: theirs is given
 * back to the month of the refund, as before. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Adds `list_addresses.charged_month`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('list_addresses').addColumn('charged_month', 'text').execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('list_addresses').dropColumn('charged_month').execute();
}
