/**
 * Usage charges on PostgreSQL: one statement charges the key's row (its own cap) and the account's
 * row (the quota all its keys share) together. It locks the key's row, then the account's (always
 * in that order: the account's lookup waits on the key's lock being taken, so charges never
 * deadlock), grants min(requested, what the account has left, what the key's cap leaves) from the
 * locked, newest values, and adds the grant to both rows; locks are held for this one statement
 * only, as the single-row charge of earlier releases did. A month's first charge makes both rows
 * (idempotently, whoever wins) and tries once more.
 */
import { sql } from 'kysely';
import type { UsageMonth } from '../../../usage/months.ts';
import type { Ceiling, UsageOwner, Used } from '../../../usage/ports.ts';
import type { Executor } from '../usage-queries.ts';
import { ensureRows, verificationsUsed } from '../usage-queries.ts';

/** No cap: a key without one still counts its use on its own row. */
const UNCAPPED = Number.MAX_SAFE_INTEGER;

interface GrantRow {
  granted: number | string;
  account: number | string;
  key: number | string;
}

/** Charges up to `requested` verifications under both ceilings. */
export async function chargeVerificationRows(
  db: Executor,
  owner: UsageOwner,
  month: UsageMonth,
  requested: number,
  ceiling: Ceiling,
): Promise<{ granted: number; used: Used }> {
  if (requested === 0 || ceiling.account === 0 || ceiling.key === 0) {
    return { granted: 0, used: await verificationsUsed(db, owner, month) };
  }
  const charge = () => grant(db, 'verifications', owner, month, requested, ceiling);
  const row = (await charge()) ?? (await ensureRows(db, owner, month).then(charge));
  return { granted: Number(row!.granted), used: { account: Number(row!.account), key: Number(row!.key) } };
}

/** Charges one bulk request when both ceilings allow it. */
export async function chargeBulkRows(
  db: Executor,
  owner: UsageOwner,
  month: UsageMonth,
  ceiling: Ceiling,
): Promise<{ granted: boolean; used: Used }> {
  const charge = () => grant(db, 'bulk_requests', owner, month, 1, ceiling);
  const row = (await charge()) ?? (await ensureRows(db, owner, month).then(charge));
  return {
    granted: Number(row!.granted) === 1,
    used: { account: Number(row!.account), key: Number(row!.key) },
  };
}

/** The one statement; undefined when a row of the month is missing. */
async function grant(
  db: Executor,
  column: 'verifications' | 'bulk_requests',
  owner: UsageOwner,
  month: UsageMonth,
  requested: number,
  ceiling: Ceiling,
): Promise<GrantRow | undefined> {
  const counted = sql.ref(column);
  const keyLimit = ceiling.key ?? UNCAPPED;
  const { rows } = await sql<GrantRow>`
    with k as (
      select ${counted} as used from usage where api_key_id = ${owner.keyId} and month = ${month} for update
    ), a as (
      select ${counted} as used from account_usage
       where account_id = ${owner.accountId} and month = ${month} and exists (select 1 from k)
      for update
    ), g as (
      select greatest(0, least(${requested}::bigint, ${ceiling.account}::bigint - a.used, ${keyLimit}::bigint - k.used)) as n,
             a.used as account_used, k.used as key_used
        from a, k
    ), ua as (
      update account_usage set ${counted} = ${counted} + (select n from g)
       where account_id = ${owner.accountId} and month = ${month} and (select n from g) > 0
      returning ${counted} as used
    ), uk as (
      update usage set ${counted} = ${counted} + (select n from g)
       where api_key_id = ${owner.keyId} and month = ${month} and (select n from g) > 0
      returning ${counted} as used
    )
    select g.n as granted,
           coalesce((select used from ua), g.account_used) as account,
           coalesce((select used from uk), g.key_used) as key
      from g`.execute(db);
  return rows[0];
}
