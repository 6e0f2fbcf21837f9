/**
 * The usage queries both the store and the list charges run, on the database or inside a
 * transaction: a conditional grant of verifications and the month's row made on demand.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { UsageMonth } from '../../usage/months.ts';
import type { DatabaseSchema } from './schema.ts';

/** A database or a transaction on it: the usage queries run on either. */
type Executor = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/**
 * Adds min(requested, limit - verifications) when below the limit, in one UPDATE. Both SET
 * expressions read the row as it was before this UPDATE (SQL semantics, in SQLite and PostgreSQL
 * alike), and the row is locked from read to write: SQLite has one writer at a time, and
 * PostgreSQL makes a concurrent UPDATE wait, then re-evaluates WHERE and SET on the new row.
 * `last_verifications_grant` records this UPDATE's own grant: the new total alone cannot tell
 * "granted all 7" from "granted the last 3" when the cap is reached. Undefined: no row updated.
 */
export async function grantVerifications(
  db: Executor,
  keyId: string,
  month: UsageMonth,
  requested: number,
  limit: number,
): Promise<{ granted: number; used: number } | undefined> {
  const grant = sql<number>`(case when ${limit} - verifications < ${requested} then ${limit} - verifications else ${requested} end)`;
  const row = await db
    .updateTable('usage')
    .set({ verifications: sql<number>`verifications + ${grant}`, last_verifications_grant: grant })
    .where('api_key_id', '=', keyId)
    .where('month', '=', month)
    .where('verifications', '<', limit)
    .returning(['verifications', 'last_verifications_grant'])
    .executeTakeFirst();
  return row === undefined ? undefined : { granted: row.last_verifications_grant, used: row.verifications };
}

/** Makes the month's usage row if missing; concurrent callers all succeed, one row results. */
export async function ensureUsageRow(db: Executor, keyId: string, month: UsageMonth): Promise<void> {
  await db
    .insertInto('usage')
    .values({ api_key_id: keyId, month, verifications: 0, bulk_requests: 0, last_verifications_grant: 0 })
    .onConflict((conflict) => conflict.columns(['api_key_id', 'month']).doNothing())
    .execute();
}

/** The month's verifications charged so far (0 when it has no row yet). */
export async function verificationsUsed(db: Executor, keyId: string, month: UsageMonth): Promise<number> {
  const usage = await db
    .selectFrom('usage')
    .select('verifications')
    .where('api_key_id', '=', keyId)
    .where('month', '=', month)
    .executeTakeFirst();
  return usage?.verifications ?? 0;
}
