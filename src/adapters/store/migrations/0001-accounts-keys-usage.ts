/**
 * Accounts, API keys and monthly usage. Portable DDL only (text ids and ISO timestamps, integers),
 * so the same migration runs on SQLite and PostgreSQL. Quotas and counters are `bigint` because a
 * plan may set a quota up to 2^53 (an operator's "unlimited"); both backends return them as numbers.
 */
import { type Kysely, sql } from 'kysely';

/** Creates `accounts`, `api_keys` and `usage`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('plan', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull())
    .addColumn('display_prefix', 'text', (col) => col.notNull())
    .addColumn('monthly_quota', 'bigint')
    .addColumn('bulk_quota', 'bigint')
    .addColumn('rate_limit', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  // Every API request looks its key up by hash.
  await db.schema.createIndex('api_keys_key_hash_idx').on('api_keys').column('key_hash').unique().execute();
  await db.schema.createIndex('api_keys_account_id_idx').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('usage')
    .addColumn('api_key_id', 'text', (col) => col.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('month', 'text', (col) => col.notNull())
    .addColumn('verifications', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bulk_requests', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('last_verifications_grant', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_pk', ['api_key_id', 'month'])
    // The charge and refund updates keep these true; the checks catch a bug that would not.
    .addCheckConstraint('usage_verifications_non_negative', sql`verifications >= 0`)
    .addCheckConstraint('usage_bulk_requests_non_negative', sql`bulk_requests >= 0`)
    .execute();
}

/** Drops the three tables. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('accounts').execute();
}
