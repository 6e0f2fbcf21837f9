/**
 * HubSpot's watches: a polled watch (a private-app connection has no webhooks) keeps where its last
 * look ended (`poll_cursor`, the `createdate` of the newest contact seen, ISO-8601); a member
 * verified through a watch keeps its address key, so a privacy deletion that names only the
 * contact id can be acted on (erasure clears it with the rest). Integrations are found by their
 * platform account (HubSpot's app events name only the portal). Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Adds the columns and the index. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('integration_watches').addColumn('poll_cursor', 'text').execute();
  await db.schema.alterTable('integration_watch_members').addColumn('address_key', 'text').execute();
  await db.schema
    .createIndex('integrations_platform_account_idx')
    .on('integrations')
    .columns(['provider', 'provider_account_id'])
    .execute();
}

/** Removes them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('integrations_platform_account_idx').execute();
  await db.schema.alterTable('integration_watch_members').dropColumn('address_key').execute();
  await db.schema.alterTable('integration_watches').dropColumn('poll_cursor').execute();
}
