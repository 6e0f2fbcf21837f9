/**
 * Account mail: a user's address is confirmed (`users.email_confirmed_at`) once they follow the
 * link sent to it, and `user_tokens` holds the one-time links (address confirmation, password
 * reset) as SHA-256 hashes of their tokens, with what each is for and when it expires; a token is
 * deleted when used. Every user made before this release counts as confirmed (at their creation):
 * only sign-ups through a mail relay ever wait. Portable DDL, as 0001.
 */
import { type Kysely, sql } from 'kysely';

/** Adds `users.email_confirmed_at` (set for every existing user) and creates `user_tokens`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_confirmed_at', 'text').execute();
  await sql`UPDATE users SET email_confirmed_at = created_at`.execute(db);
  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  // A new link replaces the user's earlier ones of its purpose: found by user.
  await db.schema.createIndex('user_tokens_user_id_idx').on('user_tokens').column('user_id').execute();
}

/** Drops them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_tokens').execute();
  await db.schema.alterTable('users').dropColumn('email_confirmed_at').execute();
}
