/**
 * The SQLite store: KyselyStore for everything, with the per-request hot path (key and account
 * lookups, quota charges) on prepared better-sqlite3 statements. The SQL is the same as KyselyStore's; what
 * changes is that charges arriving in one event-loop turn run in ONE write transaction. Each is
 * still its own conditional UPDATEs, so quotas stay exact; the commit, which dominated a request's
 * cost, is paid once per batch instead of once per request.
 */
import type Database from 'better-sqlite3';
import type { Kysely, Selectable } from 'kysely';
import type { Account, ApiKeyRecord } from '../../../accounts/ports.ts';
import { KyselyStore, toAccount, toApiKeyRecord } from '../kysely-store.ts';
import type { AccountsTable, ApiKeysTable, DatabaseSchema } from '../schema.ts';
import { SqliteCharges } from './charges.ts';
import { sqliteListWrites } from './list-writes.ts';
import { WriteBatcher } from './write-batcher.ts';

const KEY_BY_HASH = 'select * from api_keys where key_hash = ?';
const ACCOUNT_BY_ID = 'select * from accounts where id = ?';

/** `Store` on SQLite. */
export class SqliteStore extends KyselyStore {
  readonly #keyByHash: Database.Statement;
  readonly #accountById: Database.Statement;

  constructor(db: Kysely<DatabaseSchema>, connection: Database.Database) {
    const writes = new WriteBatcher(connection);
    const charges = new SqliteCharges(connection);
    // A list's charges and result saves run in the write batcher like the API's charges:
    // synchronous statements, one transaction each, so they never interleave with another write.
    super(db, 'sqlite', sqliteListWrites(connection, writes, charges), {
      verifications: (owner, month, requested, ceiling) =>
        writes.run(() => charges.verifications(owner, month, requested, ceiling)),
      bulkRequest: (owner, month, ceiling) => writes.run(() => charges.bulkRequest(owner, month, ceiling)),
    });
    this.#keyByHash = connection.prepare(KEY_BY_HASH);
    this.#accountById = connection.prepare(ACCOUNT_BY_ID);
  }

  override async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.#keyByHash.get(keyHash) as Selectable<ApiKeysTable> | undefined;
    return row === undefined ? null : toApiKeyRecord(row);
  }

  override async findAccount(id: string): Promise<Account | null> {
    const row = this.#accountById.get(id) as Selectable<AccountsTable> | undefined;
    return row === undefined ? null : toAccount(row);
  }
}
