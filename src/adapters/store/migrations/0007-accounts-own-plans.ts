/**
 * Plans move from keys to accounts, and accounts get users and sessions.
 *
 * Until now each key carried a plan and its own overrides, with usage counted per key. From here
 * the account carries them and every key of it draws on one quota; a key may carry lower caps.
 * Every existing key keeps the limits it had:
 * - an account with one key (what `keys create` made) takes that key's plan and overrides;
 * - an account whose keys an operator put together had as many separate quotas as keys: it takes
 *   the sum of its keys' figures, and each key keeps its own figures as its caps, so no key may
 *   use more than before and none is cut short by the others;
 * - this month's (and every earlier month's) usage of an account is the sum of its keys'.
 * The figures of the second case need the plans in force (MAILVET_PLANS), hence the factory.
 * Portable DDL, as 0001.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import { effectiveLimits, type Plan } from '../../../accounts/plans.ts';

interface OldKey {
  id: string;
  account_id: string;
  plan: string;
  monthly_quota: number | string | null;
  bulk_quota: number | string | null;
  rate_limit: number | string | null;
}

/** The migration, with the plans that give multi-key accounts their figures. */
export function accountsOwnPlans(plans: Readonly<Record<string, Plan>>): Migration {
  return {
    up: async (db: Kysely<unknown>) => {
      await createTables(db);
      await moveFigures(db, plans);
      await sql`INSERT INTO account_usage (account_id, month, verifications, bulk_requests, last_verifications_grant)
        SELECT k.account_id, u.month, SUM(u.verifications), SUM(u.bulk_requests), 0
          FROM usage u JOIN api_keys k ON k.id = u.api_key_id
         GROUP BY k.account_id, u.month`.execute(db);
    },
    down: async (db: Kysely<unknown>) => {
      for (const table of ['sessions', 'users', 'daily_usage', 'account_usage']) {
        await db.schema.dropTable(table).execute();
      }
      for (const column of ['plan', 'monthly_quota', 'bulk_quota', 'rate_limit']) {
        await db.schema.alterTable('accounts').dropColumn(column).execute();
      }
      await db.schema.alterTable('api_keys').dropColumn('kind').execute();
      await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
    },
  };
}

async function createTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('plan', 'text', (col) => col.notNull().defaultTo('free'))
    .execute();
  await db.schema.alterTable('accounts').addColumn('monthly_quota', 'bigint').execute();
  await db.schema.alterTable('accounts').addColumn('bulk_quota', 'bigint').execute();
  await db.schema.alterTable('accounts').addColumn('rate_limit', 'integer').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (col) => col.notNull().defaultTo('api'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();

  await db.schema
    .createTable('account_usage')
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('month', 'text', (col) => col.notNull())
    .addColumn('verifications', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bulk_requests', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('last_verifications_grant', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('account_usage_pk', ['account_id', 'month'])
    .addCheckConstraint('account_usage_verifications_non_negative', sql`verifications >= 0`)
    .addCheckConstraint('account_usage_bulk_requests_non_negative', sql`bulk_requests >= 0`)
    .execute();

  // Display figures, added to once a second: no per-request write.
  await db.schema
    .createTable('daily_usage')
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text', (col) => col.notNull())
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('metric', 'text', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('daily_usage_pk', ['account_id', 'day', 'api_key_id', 'metric'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('users_email_idx').on('users').column('email').unique().execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('sessions_token_hash_idx')
    .on('sessions')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute();
}

async function moveFigures(db: Kysely<unknown>, plans: Readonly<Record<string, Plan>>): Promise<void> {
  const { rows: keys } = await sql<OldKey>`
    SELECT id, account_id, plan, monthly_quota, bulk_quota, rate_limit FROM api_keys ORDER BY created_at, id
  `.execute(db);
  const byAccount = new Map<string, OldKey[]>();
  for (const key of keys) byAccount.set(key.account_id, [...(byAccount.get(key.account_id) ?? []), key]);
  for (const [accountId, accountKeys] of byAccount) {
    const first = accountKeys[0]!;
    if (accountKeys.length === 1) {
      await sql`UPDATE accounts SET plan = ${first.plan}, monthly_quota = ${first.monthly_quota},
        bulk_quota = ${first.bulk_quota}, rate_limit = ${first.rate_limit} WHERE id = ${accountId}`.execute(
        db,
      );
      await sql`UPDATE api_keys SET monthly_quota = NULL, bulk_quota = NULL, rate_limit = NULL
        WHERE id = ${first.id}`.execute(db);
      continue;
    }
    const figures = accountKeys.map((key) =>
      effectiveLimits(plans, key.plan, {
        monthlyQuota: nullableNumber(key.monthly_quota),
        bulkQuota: nullableNumber(key.bulk_quota),
        rateLimit: nullableNumber(key.rate_limit),
      }),
    );
    const sum = (pick: (limits: Required<Plan>) => number) =>
      Math.min(
        Number.MAX_SAFE_INTEGER,
        figures.reduce((total, limits) => total + pick(limits), 0),
      );
    await sql`UPDATE accounts SET plan = ${first.plan},
      monthly_quota = ${sum((limits) => limits.monthlyVerifications)},
      bulk_quota = ${sum((limits) => limits.monthlyBulkRequests)},
      rate_limit = ${Math.min(
        100_000,
        sum((limits) => limits.ratePerSecond),
      )} WHERE id = ${accountId}`.execute(db);
    for (const [i, key] of accountKeys.entries()) {
      const limits = figures[i]!;
      await sql`UPDATE api_keys SET monthly_quota = ${limits.monthlyVerifications},
        bulk_quota = ${limits.monthlyBulkRequests}, rate_limit = ${limits.ratePerSecond}
        WHERE id = ${key.id}`.execute(db);
    }
  }
}

function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
