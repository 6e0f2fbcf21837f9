/**
 * The database's tables as Kysely sees them. Column types are the portable subset both SQLite and
 * PostgreSQL return alike (text, integers; PostgreSQL's bigint is parsed to a number by the pool),
 * so one row mapping serves both backends.
 */

/** `accounts`: who owns keys (and, later, dashboard users and list jobs). */
export interface AccountsTable {
  id: string;
  name: string;
  /** ISO-8601 UTC instant. */
  created_at: string;
}

/** `api_keys`: one row per key; the key itself is never stored, only its hash. */
export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  plan: string;
  key_hash: string;
  display_prefix: string;
  /** Per-key overrides of the plan's figures; null keeps the plan's. */
  monthly_quota: number | null;
  bulk_quota: number | null;
  rate_limit: number | null;
  created_at: string;
  revoked_at: string | null;
}

/** `usage`: one row per key per calendar month (UTC), charged by atomic conditional updates. */
export interface UsageTable {
  api_key_id: string;
  /** `YYYY-MM`. */
  month: string;
  verifications: number;
  bulk_requests: number;
  /**
   * How many verifications the latest charge granted, set by the same UPDATE that adds them, so
   * that RETURNING tells the caller its own grant even when the cap cut it short.
   */
  last_verifications_grant: number;
}

/** Every table, keyed by name. */
export interface DatabaseSchema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
}
