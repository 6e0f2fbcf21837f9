/**
 * Gives every key of the old shared `default` account an account of its own. Until now the CLI put
 * every key in that one account while lists are scoped by account, so any key could read, pause
 * and delete the lists of every other key. A key moves with its lists; keys an operator put in
 * another account on purpose stay together. Portable SQL, as 0001.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

const SHARED_ACCOUNT_ID = 'default';

/** Splits the `default` account into one account per key. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows: keys } = await sql<{ id: string; name: string; created_at: string }>`
    SELECT id, name, created_at FROM api_keys WHERE account_id = ${SHARED_ACCOUNT_ID} ORDER BY created_at, id
  `.execute(db);
  for (const key of keys) {
    const accountId = randomUUID();
    await sql`INSERT INTO accounts (id, name, created_at) VALUES (${accountId}, ${key.name}, ${key.created_at})`.execute(
      db,
    );
    await sql`UPDATE api_keys SET account_id = ${accountId} WHERE id = ${key.id}`.execute(db);
    await sql`UPDATE lists SET account_id = ${accountId} WHERE api_key_id = ${key.id}`.execute(db);
  }
  // Nothing refers to it any more; keeping it would invite new keys into it.
  await sql`DELETE FROM accounts WHERE id = ${SHARED_ACCOUNT_ID}
    AND NOT EXISTS (SELECT 1 FROM api_keys WHERE account_id = ${SHARED_ACCOUNT_ID})`.execute(db);
}

/** Not reversible: which keys shared an account before is not kept. */
export async function down(): Promise<void> {}
