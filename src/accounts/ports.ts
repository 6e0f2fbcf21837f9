/**
 * The store port for accounts, API keys and usage. Adapters in `src/adapters/store/` implement it
 * on SQLite and PostgreSQL with the same queries; one contract suite runs against both.
 */
import type { ListStore } from '../lists/ports.ts';
import type { UsageMonth } from '../usage/months.ts';

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

export interface NewApiKey {
  accountId: string;
  name: string;
  plan: string;
  keyHash: string;
  displayPrefix: string;
  monthlyQuota: number | null;
  bulkQuota: number | null;
  rateLimit: number | null;
}

export interface Usage {
  verifications: number;
  bulkRequests: number;
}

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

export interface UsageStore {
  /**
   * Charges up to `requested` verifications for the key's month without passing `limit`, in one
   * atomic conditional update (never read-then-write): concurrent callers never overspend.
   * Returns how many were granted (0..requested) and the month's usage after the charge.
   */
  chargeVerifications(
    keyId: string,
    month: UsageMonth,
    requested: number,
    limit: number,
  ): Promise<{ granted: number; used: number }>;
  /** Gives back units (a `dns_error` result is not charged). Never goes below zero. */
  refundVerifications(keyId: string, month: UsageMonth, count: number): Promise<void>;
  /** Charges one bulk request if the month's bulk count is below `limit`; atomic like the above. */
  chargeBulkRequest(
    keyId: string,
    month: UsageMonth,
    limit: number,
  ): Promise<{ granted: boolean; used: number }>;
  /** Gives back one bulk request (the request was refused after all). */
  refundBulkRequest(keyId: string, month: UsageMonth): Promise<void>;
  usage(keyId: string, month: UsageMonth): Promise<Usage>;
}

/** Everything the API needs from its database. */
export interface Store extends AccountStore, UsageStore {
  /** Which backend: for logs and /readyz. */
  readonly kind: 'sqlite' | 'postgres';
  /** List jobs, on the same database. */
  readonly lists: ListStore;
  /** Throws when the database cannot be reached (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
