/**
 * The SQLite store: KyselyStore for everything, with the per-request hot path (key and account
 * lookups, quota charges) on prepared better-sqlite3 statements. The SQL is the same as KyselyStore's; what
 * changes is that charges arriving in one event-loop turn run in ONE write transaction. Each is
 * still its own conditional UPDATEs, so quotas stay exact; the commit, which dominated a request's
 * cost, is paid once per batch instead of once per request.
 */
import type Database from 'better-sqlite3';
import type { Kysely, Selectable } from 'kysely';
import type {
  Account,
  AccountPatch,
  ApiKeyKind,
  ApiKeyPatch,
  ApiKeyRecord,
  KeyWithAccount,
} from '../../../accounts/ports.ts';
import type { FeedbackStore } from '../../../feedback/ports.ts';
import type { DataProtectionStore } from '../../../privacy/ports.ts';
import { KyselyDataProtectionStore } from '../kysely-data-protection-store.ts';
import { KyselyFeedbackStore, sqliteOutcomeRows } from '../kysely-feedback-store.ts';
import { KyselyStore, toAccount } from '../kysely-store.ts';
import type { AccountsTable, DatabaseSchema } from '../schema.ts';
import { BackgroundCheckpoints } from './background-checkpoints.ts';
import { SqliteCharges } from './charges.ts';
import { CoalescedCharges } from './coalesced-charges.ts';
import { KnownKeys } from './known-keys.ts';
import { sqliteListWrites } from './list-writes.ts';
import { WriteBatcher } from './write-batcher.ts';

// In raw mode (arrays, not objects): better-sqlite3 builds a row object by making and interning
// every column's name on every call, which cost more than the lookup itself on the
// authentication path. The order of the columns is `keyWithAccount`'s.
const KEY_BY_HASH = `select k.id, k.account_id, k.kind, k.name, k.key_hash, k.display_prefix, k.monthly_quota,
    k.bulk_quota, k.rate_limit, k.created_at, k.last_used_at, k.revoked_at,
    a.name, a.plan, a.monthly_quota, a.bulk_quota, a.rate_limit, a.created_at, a.retention_days
  from api_keys k join accounts a on a.id = k.account_id where k.key_hash = ?`;

const ACCOUNT_BY_ID = 'select * from accounts where id = ?';

type KeyWithAccountTuple = [
  id: string,
  accountId: string,
  kind: string,
  name: string,
  keyHash: string,
  displayPrefix: string,
  monthlyQuota: number | null,
  bulkQuota: number | null,
  rateLimit: number | null,
  createdAt: string,
  lastUsedAt: string | null,
  revokedAt: string | null,
  accountName: string,
  plan: string,
  accountMonthlyQuota: number | null,
  accountBulkQuota: number | null,
  accountRateLimit: number | null,
  accountCreatedAt: string,
  accountRetentionDays: number | null,
];

function keyWithAccount(row: KeyWithAccountTuple): KeyWithAccount {
  const [id, accountId, kind, name, keyHash, displayPrefix, monthlyQuota, bulkQuota, rateLimit] = row;
  const [createdAt, lastUsedAt, revokedAt] = [row[9], row[10], row[11]];
  return {
    key: {
      id,
      accountId,
      kind: kind as ApiKeyKind,
      name,
      keyHash,
      displayPrefix,
      caps: { monthlyQuota, bulkQuota, rateLimit },
      createdAt,
      lastUsedAt,
      revokedAt,
    },
    account: {
      id: accountId,
      name: row[12],
      plan: row[13],
      monthlyQuota: row[14],
      bulkQuota: row[15],
      rateLimit: row[16],
      createdAt: row[17],
      retentionDays: row[18],
    },
  };
}

/** `Store` on SQLite. */
export class SqliteStore extends KyselyStore {
  override readonly feedback: FeedbackStore;
  override readonly privacy: DataProtectionStore;
  readonly #keyByHash: Database.Statement;
  readonly #accountById: Database.Statement;
  readonly #knownKeys: KnownKeys;

  readonly #checkpoints: BackgroundCheckpoints | undefined;

  /** With `backgroundCheckpoints` (a server or worker), WAL checkpoints move off the event loop once writes are busy. */
  constructor(
    db: Kysely<DatabaseSchema>,
    connection: Database.Database,
    options: { backgroundCheckpoints?: boolean } = {},
  ) {
    const checkpoints = options.backgroundCheckpoints ? new BackgroundCheckpoints(connection) : undefined;
    const writes = new WriteBatcher(connection, checkpoints && (() => checkpoints.wrote()));
    const charges = new SqliteCharges(connection);
    // The API's charges of a turn, one per key and month (coalesced-charges.ts).
    const apiCharges = new CoalescedCharges(writes, charges);
    // A list's charges and result saves run in the write batcher like the API's charges:
    // synchronous statements, one transaction each, so they never interleave with another write.
    super(db, 'sqlite', sqliteListWrites(connection, writes, charges), {
      verifications: (owner, month, requested, ceiling) =>
        apiCharges.verifications(owner, month, requested, ceiling),
      bulkRequest: (owner, month, ceiling) => writes.run(() => charges.bulkRequest(owner, month, ceiling)),
    });
    this.#checkpoints = checkpoints;
    this.#keyByHash = connection.prepare(KEY_BY_HASH).raw(true);
    this.#knownKeys = new KnownKeys(connection);
    this.#accountById = connection.prepare(ACCOUNT_BY_ID);
    // Every verification of an account looks its feedback up: a prepared statement, as above.
    this.feedback = new KyselyFeedbackStore(db, sqliteOutcomeRows(connection));
    // Stepped to its end by `pragma()` (a statement run once through Kysely frees a single page);
    // a no-op on a file not in incremental auto-vacuum (auto-vacuum.ts).
    this.privacy = new KyselyDataProtectionStore(db, (pages) => {
      connection.pragma(`incremental_vacuum(${pages})`);
    });
  }

  knownApiKeyByHash(keyHash: string): KeyWithAccount | undefined {
    return this.#knownKeys.get(keyHash);
  }

  override async findApiKeyByHash(keyHash: string): Promise<KeyWithAccount | null> {
    const known = this.#knownKeys.get(keyHash);
    if (known !== undefined) return known;
    const row = this.#keyByHash.get(keyHash) as KeyWithAccountTuple | undefined;
    if (row === undefined) return null;
    const found = keyWithAccount(row);
    this.#knownKeys.set(keyHash, found);
    return found;
  }

  // Every write that changes what a key lookup answers forgets the keys this process knows,
  // before (a lookup meanwhile reads the database again) and after (one made while it ran).
  override updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    return this.#changingKeys(() => super.updateAccount(id, patch));
  }

  override deleteAccount(id: string): Promise<void> {
    return this.#changingKeys(() => super.deleteAccount(id));
  }

  override updateApiKey(accountId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    return this.#changingKeys(() => super.updateApiKey(accountId, id, patch));
  }

  override revokeApiKey(id: string): Promise<boolean> {
    return this.#changingKeys(() => super.revokeApiKey(id));
  }

  async #changingKeys<T>(write: () => Promise<T>): Promise<T> {
    this.#knownKeys.forget();
    try {
      return await write();
    } finally {
      this.#knownKeys.forget();
    }
  }

  override async close(): Promise<void> {
    await this.#checkpoints?.stop();
    await super.close();
  }

  override async findAccount(id: string): Promise<Account | null> {
    const row = this.#accountById.get(id) as Selectable<AccountsTable> | undefined;
    return row === undefined ? null : toAccount(row);
  }
}
