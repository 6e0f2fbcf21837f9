/**
 * Watches of integrations: a Mailchimp webhook per watched audience, reached at
 * `/hooks/mailchimp/{token}`; only the token's SHA-256 is stored. `integration_watch_members`
 * records when each member was last verified through a watch, so a replayed event is not verified
 * (and charged) again. Removed with the integration. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `integration_watches` and `integration_watch_members`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_watches')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('integration_id', 'text', (col) =>
      col.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('audience_id', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('webhook_id', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('integration_watches_token_idx')
    .on('integration_watches')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema
    .createIndex('integration_watches_integration_idx')
    .on('integration_watches')
    .column('integration_id')
    .execute();
  await db.schema
    .createTable('integration_watch_members')
    .addColumn('watch_id', 'text', (col) =>
      col.notNull().references('integration_watches.id').onDelete('cascade'),
    )
    .addColumn('member_id', 'text', (col) => col.notNull())
    .addColumn('verified_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('integration_watch_members_pk', ['watch_id', 'member_id'])
    .execute();
}

/** Drops them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integration_watch_members').execute();
  await db.schema.dropTable('integration_watches').execute();
}
