/**
 * The SQLite store: KyselyStore for everything, with the per-request hot path (key lookup, quota
 * charges) on prepared better-sqlite3 statements. The SQL is the same as KyselyStore's; what
 * changes is that charges arriving in one event-loop turn run in ONE write transaction. Each is
 * still its own conditional UPDATE, so quotas stay exact; the commit, which dominated a request's
 * cost, is paid once per batch instead of once per request.
 */
import type Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { ApiKeyRecord } from '../../../accounts/ports.ts';
import type { UsageMonth } from '../../../usage/months.ts';
import { assertCount, KyselyStore, toApiKeyRecord } from '../kysely-store.ts';
import type { ApiKeysTable, DatabaseSchema } from '../schema.ts';
import { sqliteListWrites } from './list-writes.ts';
import { WriteBatcher } from './write-batcher.ts';

// Grants min(requested, limit - verifications) below the limit; both SET expressions read the old
// row, and last_verifications_grant records this UPDATE's own grant (see KyselyStore).
const GRANT_VERIFICATIONS = `
  update usage
     set verifications = verifications + (case when @limit - verifications < @requested then @limit - verifications else @requested end),
         last_verifications_grant = (case when @limit - verifications < @requested then @limit - verifications else @requested end)
   where api_key_id = @keyId and month = @month and verifications < @limit
  returning verifications, last_verifications_grant`;
const GRANT_BULK = `
  update usage set bulk_requests = bulk_requests + 1
   where api_key_id = @keyId and month = @month and bulk_requests < @limit
  returning bulk_requests`;
const ENSURE_ROW = `
  insert into usage (api_key_id, month, verifications, bulk_requests, last_verifications_grant)
  values (?, ?, 0, 0, 0) on conflict (api_key_id, month) do nothing`;
const USAGE = 'select verifications, bulk_requests from usage where api_key_id = ? and month = ?';
const KEY_BY_HASH = 'select * from api_keys where key_hash = ?';

type Statements = ReturnType<typeof prepareStatements>;

function prepareStatements(connection: Database.Database) {
  return {
    grantVerifications: connection.prepare(GRANT_VERIFICATIONS),
    grantBulk: connection.prepare(GRANT_BULK),
    ensureRow: connection.prepare(ENSURE_ROW),
    usage: connection.prepare(USAGE),
    keyByHash: connection.prepare(KEY_BY_HASH),
  };
}

/** `Store` on SQLite. */
export class SqliteStore extends KyselyStore {
  readonly #writes: WriteBatcher;
  readonly #statements: Statements;

  constructor(db: Kysely<DatabaseSchema>, connection: Database.Database) {
    const writes = new WriteBatcher(connection);
    const statements = prepareStatements(connection);
    // A list's charges and result saves run in the write batcher like the API's charges:
    // synchronous statements, one transaction each, so they never interleave with another write.
    super(
      db,
      'sqlite',
      sqliteListWrites(connection, writes, (keyId, month, requested, limit) =>
        chargeSync(statements, keyId, month, requested, limit),
      ),
    );
    this.#writes = writes;
    this.#statements = statements;
  }

  override async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.#statements.keyByHash.get(keyHash) as ApiKeysTable | undefined;
    return row === undefined ? null : toApiKeyRecord(row);
  }

  override async chargeVerifications(
    keyId: string,
    month: UsageMonth,
    requested: number,
    limit: number,
  ): Promise<{ granted: number; used: number }> {
    assertCount('requested', requested);
    assertCount('limit', limit);
    return this.#writes.run(() => chargeSync(this.#statements, keyId, month, requested, limit));
  }

  override async chargeBulkRequest(
    keyId: string,
    month: UsageMonth,
    limit: number,
  ): Promise<{ granted: boolean; used: number }> {
    assertCount('limit', limit);
    const { grantBulk, ensureRow, usage } = this.#statements;
    return this.#writes.run(() => {
      if (limit > 0) {
        let row = grantBulk.get({ limit, keyId, month }) as { bulk_requests: number } | undefined;
        if (row === undefined) {
          ensureRow.run(keyId, month);
          row = grantBulk.get({ limit, keyId, month }) as { bulk_requests: number } | undefined;
        }
        if (row !== undefined) return { granted: true, used: row.bulk_requests };
      }
      const current = usage.get(keyId, month) as UsageRow | undefined;
      return { granted: false, used: current?.bulk_requests ?? 0 };
    });
  }
}

/** The quota charge of KyselyStore.chargeVerifications, as synchronous statements. */
function chargeSync(
  statements: Statements,
  keyId: string,
  month: UsageMonth,
  requested: number,
  limit: number,
): { granted: number; used: number } {
  const { grantVerifications, ensureRow, usage } = statements;
  if (requested > 0 && limit > 0) {
    let row = grantVerifications.get({ limit, requested, keyId, month }) as GrantRow | undefined;
    if (row === undefined) {
      ensureRow.run(keyId, month);
      row = grantVerifications.get({ limit, requested, keyId, month }) as GrantRow | undefined;
    }
    if (row !== undefined) return { granted: row.last_verifications_grant, used: row.verifications };
  }
  const current = usage.get(keyId, month) as UsageRow | undefined;
  return { granted: 0, used: current?.verifications ?? 0 };
}

interface GrantRow {
  verifications: number;
  last_verifications_grant: number;
}

interface UsageRow {
  verifications: number;
  bulk_requests: number;
}
