/**
 * Connected email platforms: one row per integration of an account, with the
 * platform account's name and data centre and the credential sealed (AES-256-GCM, never stored
 * plain). Removed with the account. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `integrations`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('account_name', 'text', (col) => col.notNull())
    .addColumn('provider_account_id', 'text', (col) => col.notNull())
    .addColumn('dc', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('message', 'text')
    .addColumn('auth_kind', 'text', (col) => col.notNull())
    .addColumn('credential', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('integrations_account_idx')
    .on('integrations')
    .columns(['account_id', 'created_at'])
    .execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integrations').execute();
}
