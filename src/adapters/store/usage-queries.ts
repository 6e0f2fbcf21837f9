/**
 * The usage queries every dialect runs alike, on the database or inside a transaction: the rows of
 * a month made on demand, refunds, and reads. The charges themselves are the dialect's
 * (`postgres/charges.ts`, `sqlite/charges.ts`): each takes the key's row (its own cap) and the
 * account's row (the quota its keys share) together.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { UsageMonth } from '../../usage/months.ts';
import type { UsageOwner, Used } from '../../usage/ports.ts';
import type { DatabaseSchema } from './schema.ts';

/** A database or a transaction on it: the usage queries run on either. */
export type Executor = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

type UsageTableName = 'usage' | 'account_usage';
const ID_COLUMN: Record<UsageTableName, string> = { usage: 'api_key_id', account_usage: 'account_id' };

/** Makes the month's rows of the key and of the account if missing; concurrent callers all succeed. */
export async function ensureRows(db: Executor, owner: UsageOwner, month: UsageMonth): Promise<void> {
  await ensureRow(db, 'usage', owner.keyId, month);
  await ensureRow(db, 'account_usage', owner.accountId, month);
}

/** Gives back `count` units of `column` on both rows, never below zero. */
export async function refundRows(
  db: Executor,
  owner: UsageOwner,
  month: UsageMonth,
  column: 'verifications' | 'bulk_requests',
  count: number,
): Promise<void> {
  if (count === 0) return;
  await takeBack(db, 'usage', owner.keyId, month, column, count);
  await takeBack(db, 'account_usage', owner.accountId, month, column, count);
}

/** The month's verifications on both rows (0 for a row not made yet). */
export async function verificationsUsed(db: Executor, owner: UsageOwner, month: UsageMonth): Promise<Used> {
  const account = await readRow(db, 'account_usage', owner.accountId, month);
  const key = await readRow(db, 'usage', owner.keyId, month);
  return { account: account.verifications, key: key.verifications };
}

/** One row's month: verifications and bulk requests (zeros when it has no row yet). */
export async function readRow(
  db: Executor,
  table: UsageTableName,
  id: string,
  month: UsageMonth,
): Promise<{ verifications: number; bulk_requests: number }> {
  const { rows } = await sql<{ verifications: number | string; bulk_requests: number | string }>`
    select verifications, bulk_requests from ${sql.table(table)}
     where ${sql.ref(ID_COLUMN[table])} = ${id} and month = ${month}`.execute(db);
  const row = rows[0];
  return { verifications: Number(row?.verifications ?? 0), bulk_requests: Number(row?.bulk_requests ?? 0) };
}

async function ensureRow(db: Executor, table: UsageTableName, id: string, month: UsageMonth): Promise<void> {
  await sql`insert into ${sql.table(table)} (${sql.ref(ID_COLUMN[table])}, month, verifications, bulk_requests, last_verifications_grant)
    values (${id}, ${month}, 0, 0, 0) on conflict do nothing`.execute(db);
}

async function takeBack(
  db: Executor,
  table: UsageTableName,
  id: string,
  month: UsageMonth,
  column: 'verifications' | 'bulk_requests',
  count: number,
): Promise<void> {
  const target = sql.ref(column);
  await sql`update ${sql.table(table)} set ${target} = case when ${target} > ${count} then ${target} - ${count} else 0 end
     where ${sql.ref(ID_COLUMN[table])} = ${id} and month = ${month}`.execute(db);
}
