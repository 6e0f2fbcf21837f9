/**
 * Sender feedback: each outcome an account reported for an address (`hard_bounce`,
 * `soft_bounce`, `delivered`, `complaint`) at an instant. The primary key is the event's identity,
 * so the same report sent twice (or a Mailchimp import run again) is stored once; it also serves
 * an address's lookup and the account's count. The domain index serves the per-domain statistics.
 * `at` and `created_at` are ISO-8601 UTC with milliseconds: text order is time order. Removed with
 * the account. Portable DDL, as 0001.
 */
import type { Kysely } from 'kysely';

/** Creates `feedback_events`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('feedback_events')
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email_normalized', 'text', (col) => col.notNull())
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('feedback_events_pk', ['account_id', 'email_normalized', 'event', 'at'])
    .execute();
  await db.schema
    .createIndex('feedback_events_domain_idx')
    .on('feedback_events')
    .columns(['account_id', 'domain', 'email_normalized'])
    .execute();
}

/** Drops it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('feedback_events').execute();
}
