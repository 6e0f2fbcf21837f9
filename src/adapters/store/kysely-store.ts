/**
 * The store on Kysely: the same queries for SQLite and PostgreSQL. Quota charges are one atomic
 * conditional UPDATE each (DESIGN §1: never read-then-write), so concurrent requests on any number
 * of processes never overspend a quota.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Account, ApiKeyRecord, NewApiKey } from '../../accounts/ports.ts';
import type { ListStore } from '../../lists/ports.ts';
import type { Store } from '../../store.ts';
import type { UsageMonth } from '../../usage/months.ts';
import type { Usage } from '../../usage/ports.ts';
import { KyselyListStore, type ListWrites } from './kysely-list-store.ts';
import type { AccountsTable, ApiKeysTable, DatabaseSchema } from './schema.ts';
import { ensureUsageRow, grantVerifications } from './usage-queries.ts';

/** `Store` on a Kysely database of either dialect. */
export class KyselyStore implements Store {
  readonly kind: Store['kind'];
  readonly lists: ListStore;
  readonly #db: Kysely<DatabaseSchema>;

  /** The dialect's list writes: synchronous in SQLite's batcher, transactions on PostgreSQL. */
  constructor(db: Kysely<DatabaseSchema>, kind: Store['kind'], listWrites: ListWrites) {
    this.#db = db;
    this.kind = kind;
    this.lists = new KyselyListStore(db, listWrites, kind);
  }

  async findApiKeyById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toApiKeyRecord(row);
  }

  async createAccount(name: string): Promise<Account> {
    const row = { id: randomUUID(), name, created_at: new Date().toISOString() };
    await this.#db.insertInto('accounts').values(row).execute();
    return toAccount(row);
  }

  async findAccount(id: string): Promise<Account | null> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toAccount(row);
  }

  async createApiKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const row: Selectable<ApiKeysTable> = {
      id: randomUUID(),
      account_id: input.accountId,
      name: input.name,
      plan: input.plan,
      key_hash: input.keyHash,
      display_prefix: input.displayPrefix,
      monthly_quota: input.monthlyQuota,
      bulk_quota: input.bulkQuota,
      rate_limit: input.rateLimit,
      created_at: new Date().toISOString(),
      revoked_at: null,
    };
    await this.#db.insertInto('api_keys').values(row).execute();
    return toApiKeyRecord(row);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row === undefined ? null : toApiKeyRecord(row);
  }

  async listApiKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    let query = this.#db.selectFrom('api_keys').selectAll();
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(toApiKeyRecord);
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

  async chargeVerifications(
    keyId: string,
    month: UsageMonth,
    requested: number,
    limit: number,
  ): Promise<{ granted: number; used: number }> {
    assertCount('requested', requested);
    assertCount('limit', limit);
    if (requested > 0 && limit > 0) {
      // Most charges find this month's row already there: one statement. The first of the month
      // makes the row (idempotently, whoever wins) and tries once more.
      let charged = await grantVerifications(this.#db, keyId, month, requested, limit);
      if (charged === undefined) {
        await ensureUsageRow(this.#db, keyId, month);
        charged = await grantVerifications(this.#db, keyId, month, requested, limit);
      }
      if (charged !== undefined) return charged;
    }
    return { granted: 0, used: (await this.usage(keyId, month)).verifications };
  }

  async refundVerifications(keyId: string, month: UsageMonth, count: number): Promise<void> {
    assertCount('count', count);
    if (count === 0) return;
    await this.#db
      .updateTable('usage')
      .set({
        verifications: sql<number>`case when verifications > ${count} then verifications - ${count} else 0 end`,
      })
      .where('api_key_id', '=', keyId)
      .where('month', '=', month)
      .execute();
  }

  async chargeBulkRequest(
    keyId: string,
    month: UsageMonth,
    limit: number,
  ): Promise<{ granted: boolean; used: number }> {
    assertCount('limit', limit);
    if (limit > 0) {
      // One unit: a row comes back only when this very UPDATE added it, so no grant column is needed.
      let charged = await this.#grantBulkRequest(keyId, month, limit);
      if (charged === undefined) {
        await ensureUsageRow(this.#db, keyId, month);
        charged = await this.#grantBulkRequest(keyId, month, limit);
      }
      if (charged !== undefined) return { granted: true, used: charged.bulk_requests };
    }
    return { granted: false, used: (await this.usage(keyId, month)).bulkRequests };
  }

  async refundBulkRequest(keyId: string, month: UsageMonth): Promise<void> {
    await this.#db
      .updateTable('usage')
      .set({ bulk_requests: sql<number>`bulk_requests - 1` })
      .where('api_key_id', '=', keyId)
      .where('month', '=', month)
      .where('bulk_requests', '>', 0)
      .execute();
  }

  async usage(keyId: string, month: UsageMonth): Promise<Usage> {
    const row = await this.#db
      .selectFrom('usage')
      .select(['verifications', 'bulk_requests'])
      .where('api_key_id', '=', keyId)
      .where('month', '=', month)
      .executeTakeFirst();
    return { verifications: row?.verifications ?? 0, bulkRequests: row?.bulk_requests ?? 0 };
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }

  async #grantBulkRequest(
    keyId: string,
    month: UsageMonth,
    limit: number,
  ): Promise<{ bulk_requests: number } | undefined> {
    return this.#db
      .updateTable('usage')
      .set({ bulk_requests: sql<number>`bulk_requests + 1` })
      .where('api_key_id', '=', keyId)
      .where('month', '=', month)
      .where('bulk_requests', '<', limit)
      .returning('bulk_requests')
      .executeTakeFirst();
  }
}

/** Counts are whole and non-negative; anything else is a caller's bug, not an expected failure. */
export function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function toApiKeyRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    plan: row.plan,
    keyHash: row.key_hash,
    displayPrefix: row.display_prefix,
    monthlyQuota: row.monthly_quota,
    bulkQuota: row.bulk_quota,
    rateLimit: row.rate_limit,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
