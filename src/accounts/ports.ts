/**
 * The accounts port: accounts and their API keys. Adapters in `src/adapters/store/` implement it
 * on SQLite and PostgreSQL with the same queries; one contract suite runs against both.
 */

/** An account: owns keys (and, later, dashboard users and lists). */
export interface Account {
  id: string;
  name: string;
  createdAt: string;
}

/** A stored API key: never the key itself, only its hash and display prefix. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  plan: string;
  keyHash: string;
  displayPrefix: string;
  /** Per-key overrides of the plan; null keeps the plan's figure. */
  monthlyQuota: number | null;
  bulkQuota: number | null;
  rateLimit: number | null;
  createdAt: string;
  revokedAt: string | null;
}

/** A key to store: everything but what the store sets itself. */
export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'createdAt' | 'revokedAt'>;

export interface AccountStore {
  createAccount(name: string): Promise<Account>;
  /** The account with this id; null when none. */
  findAccount(id: string): Promise<Account | null>;
  createApiKey(input: NewApiKey): Promise<ApiKeyRecord>;
  /** The key with this id, revoked or not; null when none. */
  findApiKeyById(id: string): Promise<ApiKeyRecord | null>;
  /** The key with this hash, revoked or not (the caller decides); null when none. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  listApiKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false when there is no such key or it was already revoked. */
  revokeApiKey(id: string): Promise<boolean>;
}
