/**
 * The store on Kysely: the same queries for SQLite and PostgreSQL. Quota charges are conditional
 * UPDATEs in one transaction (never read-then-write; `usage-queries.ts`), so concurrent
 * requests on any number of processes never overspend a quota.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { hashApiKey } from '../../accounts/api-keys.ts';
import type {
  Account,
  AccountPatch,
  ApiKeyKind,
  ApiKeyPatch,
  ApiKeyRecord,
  KeyWithAccount,
  NewAccount,
  NewApiKey,
  UserStore,
} from '../../accounts/ports.ts';
import type { AuditLog } from '../../audit/ports.ts';
import type { FeedbackStore } from '../../feedback/ports.ts';
import type { IntegrationStore } from '../../integrations/ports.ts';
import type { RunStore } from '../../integrations/runs/ports.ts';
import type { ScheduleStore } from '../../integrations/schedules/ports.ts';
import type { ListStore } from '../../lists/ports.ts';
import type { DataProtectionStore } from '../../privacy/ports.ts';
import type { Store } from '../../store.ts';
import type { UsageMonth } from '../../usage/months.ts';
import type { Ceiling, DailyUsage, Usage, UsageOwner, Used } from '../../usage/ports.ts';
import { KyselyAuditStore } from './kysely-audit-store.ts';
import { KyselyDataProtectionStore } from './kysely-data-protection-store.ts';
import { KyselyFeedbackStore } from './kysely-feedback-store.ts';
import { KyselyIntegrationStore } from './kysely-integration-store.ts';
import { KyselyListStore, type ListWrites } from './kysely-list-store.ts';
import { KyselyRunStore } from './kysely-run-store.ts';
import { KyselyScheduleStore } from './kysely-schedule-store.ts';
import { KyselyUserStore } from './kysely-user-store.ts';
import type { AccountsTable, ApiKeysTable, DatabaseSchema } from './schema.ts';
import { readRow, refundRows } from './usage-queries.ts';

/** The dialect's quota charges (`postgres/charges.ts`, `sqlite/charges.ts`). */
export interface UsageCharges {
  verifications(
    owner: UsageOwner,
    month: UsageMonth,
    requested: number,
    ceiling: Ceiling,
  ): Promise<{ granted: number; used: Used }>;
  bulkRequest(
    owner: UsageOwner,
    month: UsageMonth,
    ceiling: Ceiling,
  ): Promise<{ granted: boolean; used: Used }>;
}

/** `Store` on a Kysely database of either dialect. */
export class KyselyStore implements Store {
  readonly kind: Store['kind'];
  readonly lists: ListStore;
  readonly users: UserStore;
  readonly integrations: IntegrationStore;
  readonly runs: RunStore;
  readonly schedules: ScheduleStore;
  readonly feedback: FeedbackStore;
  readonly audit: AuditLog;
  readonly privacy: DataProtectionStore;
  readonly #db: Kysely<DatabaseSchema>;
  readonly #charges: UsageCharges;

  /** The dialect's list writes and charges: synchronous in SQLite's batcher, single statements or transactions on PostgreSQL. */
  constructor(
    db: Kysely<DatabaseSchema>,
    kind: Store['kind'],
    listWrites: ListWrites,
    charges: UsageCharges,
  ) {
    this.#db = db;
    this.kind = kind;
    this.#charges = charges;
    this.lists = new KyselyListStore(db, listWrites, kind);
    this.users = new KyselyUserStore(db);
    this.integrations = new KyselyIntegrationStore(db);
    this.runs = new KyselyRunStore(db);
    this.schedules = new KyselyScheduleStore(db);
    this.feedback = new KyselyFeedbackStore(db);
    this.audit = new KyselyAuditStore(db);
    this.privacy = new KyselyDataProtectionStore(db);
  }

  async createAccount(input: NewAccount): Promise<Account> {
    const row: Selectable<AccountsTable> = {
      id: randomUUID(),
      name: input.name,
      plan: input.plan,
      monthly_quota: input.monthlyQuota ?? null,
      bulk_quota: input.bulkQuota ?? null,
      rate_limit: input.rateLimit ?? null,
      created_at: new Date().toISOString(),
      retention_days: null,
    };
    await this.#db.insertInto('accounts').values(row).execute();
    return toAccount(row);
  }

  async findAccount(id: string): Promise<Account | null> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toAccount(row);
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.#db
      .selectFrom('accounts')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAccount);
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    const set = {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.plan !== undefined && { plan: patch.plan }),
      ...(patch.monthlyQuota !== undefined && { monthly_quota: patch.monthlyQuota }),
      ...(patch.bulkQuota !== undefined && { bulk_quota: patch.bulkQuota }),
      ...(patch.rateLimit !== undefined && { rate_limit: patch.rateLimit }),
      ...(patch.retentionDays !== undefined && { retention_days: patch.retentionDays }),
    };
    if (Object.keys(set).length > 0)
      await this.#db.updateTable('accounts').set(set).where('id', '=', id).execute();
    return this.findAccount(id);
  }

  async deleteAccount(id: string): Promise<void> {
    await this.#db.deleteFrom('accounts').where('id', '=', id).execute();
  }

  async createApiKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const row: Selectable<ApiKeysTable> = {
      id: randomUUID(),
      account_id: input.accountId,
      kind: input.kind,
      name: input.name,
      // Plans are the account's: the column is kept only for databases of earlier releases.
      plan: '',
      key_hash: input.keyHash,
      display_prefix: input.displayPrefix,
      monthly_quota: input.caps.monthlyQuota,
      bulk_quota: input.caps.bulkQuota,
      rate_limit: input.caps.rateLimit,
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.#db.insertInto('api_keys').values(row).execute();
    return toApiKeyRecord(row);
  }

  async findApiKeyById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toApiKeyRecord(row);
  }

  async findApiKeyByHash(keyHash: string): Promise<KeyWithAccount | null> {
    const row = await this.#db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select(ACCOUNT_COLUMNS)
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    return row === undefined ? null : toKeyWithAccount(row);
  }

  async listApiKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    let query = this.#db.selectFrom('api_keys').selectAll().where('kind', '=', 'api');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(toApiKeyRecord);
  }

  async updateApiKey(accountId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    const set = {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.caps?.monthlyQuota !== undefined && { monthly_quota: patch.caps.monthlyQuota }),
      ...(patch.caps?.bulkQuota !== undefined && { bulk_quota: patch.caps.bulkQuota }),
      ...(patch.caps?.rateLimit !== undefined && { rate_limit: patch.caps.rateLimit }),
    };
    const owned = this.#db
      .updateTable('api_keys')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', 'api');
    if (Object.keys(set).length > 0) await owned.set(set).execute();
    const key = await this.findApiKeyById(id);
    return key !== null && key.accountId === accountId && key.kind === 'api' ? key : null;
  }

  async touchApiKey(id: string, at: Date): Promise<void> {
    await this.#db
      .updateTable('api_keys')
      .set({ last_used_at: at.toISOString() })
      .where('id', '=', id)
      .execute();
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async dashboardKey(accountId: string): Promise<ApiKeyRecord> {
    const find = () =>
      this.#db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('kind', '=', 'dashboard')
        .orderBy('created_at')
        .orderBy('id')
        .executeTakeFirst();
    const existing = await find();
    if (existing !== undefined) return toApiKeyRecord(existing);
    // Its hash is of random bytes nobody ever sees, and auth refuses the kind anyway.
    await this.createApiKey({
      accountId,
      kind: 'dashboard',
      name: 'Dashboard',
      keyHash: hashApiKey(randomBytes(32).toString('base64url')),
      displayPrefix: '',
      caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
    });
    // Two first uses at once make two; every caller then takes the oldest.
    return toApiKeyRecord((await find())!);
  }

  async chargeVerifications(
    owner: UsageOwner,
    month: UsageMonth,
    requested: number,
    ceiling: Ceiling,
  ): Promise<{ granted: number; used: Used }> {
    assertCharge(requested, ceiling);
    return this.#charges.verifications(owner, month, requested, ceiling);
  }

  async refundVerifications(owner: UsageOwner, month: UsageMonth, count: number): Promise<void> {
    assertCount('count', count);
    await this.#db.transaction().execute((trx) => refundRows(trx, owner, month, 'verifications', count));
  }

  async chargeBulkRequest(
    owner: UsageOwner,
    month: UsageMonth,
    ceiling: Ceiling,
  ): Promise<{ granted: boolean; used: Used }> {
    assertCharge(1, ceiling);
    return this.#charges.bulkRequest(owner, month, ceiling);
  }

  async refundBulkRequest(owner: UsageOwner, month: UsageMonth): Promise<void> {
    await this.#db.transaction().execute((trx) => refundRows(trx, owner, month, 'bulk_requests', 1));
  }

  async usage(owner: UsageOwner, month: UsageMonth): Promise<{ account: Usage; key: Usage }> {
    const [account, key] = await Promise.all([
      readRow(this.#db, 'account_usage', owner.accountId, month),
      readRow(this.#db, 'usage', owner.keyId, month),
    ]);
    return { account: toUsage(account), key: toUsage(key) };
  }

  async keyUsages(accountId: string, month: UsageMonth): Promise<Map<string, Usage>> {
    const rows = await this.#db
      .selectFrom('usage')
      .innerJoin('api_keys', 'api_keys.id', 'usage.api_key_id')
      .select(['usage.api_key_id', 'usage.verifications', 'usage.bulk_requests'])
      .where('api_keys.account_id', '=', accountId)
      .where('usage.month', '=', month)
      .execute();
    return new Map(rows.map((row) => [row.api_key_id, toUsage(row)]));
  }

  async addDailyUsage(entries: readonly DailyUsage[]): Promise<void> {
    if (entries.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
      for (const entry of entries) {
        await trx
          .insertInto('daily_usage')
          .values({
            account_id: entry.accountId,
            api_key_id: entry.keyId,
            day: entry.day,
            metric: entry.metric,
            count: entry.count,
          })
          .onConflict((conflict) =>
            conflict
              .columns(['account_id', 'day', 'api_key_id', 'metric'])
              .doUpdateSet({ count: sql<number>`daily_usage.count + ${entry.count}` }),
          )
          .execute();
      }
    });
  }

  async dailyUsage(accountId: string, from: string, to: string): Promise<DailyUsage[]> {
    const rows = await this.#db
      .selectFrom('daily_usage')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day')
      .execute();
    return rows.map((row) => ({
      accountId: row.account_id,
      keyId: row.api_key_id,
      day: row.day,
      metric: row.metric,
      count: Number(row.count),
    }));
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

/** Counts are whole and non-negative; anything else is a caller's bug, not an expected failure. */
export function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

/** A charge's figures are counts. */
export function assertCharge(requested: number, ceiling: Ceiling): void {
  assertCount('requested', requested);
  assertCount('account ceiling', ceiling.account);
  if (ceiling.key !== null) assertCount('key ceiling', ceiling.key);
}

function toUsage(row: { verifications: number; bulk_requests: number }): Usage {
  return { verifications: Number(row.verifications), bulkRequests: Number(row.bulk_requests) };
}

export function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    monthlyQuota: row.monthly_quota,
    bulkQuota: row.bulk_quota,
    rateLimit: row.rate_limit,
    createdAt: row.created_at,
    retentionDays: row.retention_days,
  };
}

/** The account's columns beside a key's, prefixed (`KeyWithAccountRow`). */
const ACCOUNT_COLUMNS = [
  'accounts.name as account_name',
  'accounts.plan as account_plan',
  'accounts.monthly_quota as account_monthly_quota',
  'accounts.bulk_quota as account_bulk_quota',
  'accounts.rate_limit as account_rate_limit',
  'accounts.created_at as account_created_at',
  'accounts.retention_days as account_retention_days',
] as const;

/** A key's row joined with its account's columns, as `ACCOUNT_COLUMNS` names them. */
export interface KeyWithAccountRow extends Selectable<ApiKeysTable> {
  account_name: string;
  account_plan: string;
  account_monthly_quota: number | null;
  account_bulk_quota: number | null;
  account_rate_limit: number | null;
  account_created_at: string;
  account_retention_days: number | null;
}

export function toKeyWithAccount(row: KeyWithAccountRow): KeyWithAccount {
  return {
    key: toApiKeyRecord(row),
    account: {
      id: row.account_id,
      name: row.account_name,
      plan: row.account_plan,
      monthlyQuota: row.account_monthly_quota,
      bulkQuota: row.account_bulk_quota,
      rateLimit: row.account_rate_limit,
      createdAt: row.account_created_at,
      retentionDays: row.account_retention_days,
    },
  };
}

export function toApiKeyRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as ApiKeyKind,
    name: row.name,
    keyHash: row.key_hash,
    displayPrefix: row.display_prefix,
    caps: { monthlyQuota: row.monthly_quota, bulkQuota: row.bulk_quota, rateLimit: row.rate_limit },
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
