/**
 * The database's tables as Kysely sees them. Column types are the portable subset both SQLite and
 * PostgreSQL return alike (text, integers; PostgreSQL's bigint is parsed to a number by the pool),
 * so one row mapping serves both backends.
 */
import type { Generated } from 'kysely';

/** `accounts`: who owns keys (and, later, dashboard users and list jobs). */
export interface AccountsTable {
  id: string;
  name: string;
  /** ISO-8601 UTC instant. */
  created_at: string;
  /** The account's plan and an operator's overrides of its figures; null keeps the plan's (0007). */
  plan: Generated<string>;
  monthly_quota: number | null;
  bulk_quota: number | null;
  rate_limit: number | null;
  /** Days a finished list's results are kept; null: MAILVET_RETENTION_DAYS; 0: kept (0018). */
  retention_days: Generated<number | null>;
}

/** `api_keys`: one row per key; the key itself is never stored, only its hash. */
export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** Unused since 0007 (plans are the account's); kept for databases of earlier releases. */
  plan: string;
  key_hash: string;
  display_prefix: string;
  /** The key's own caps below its account's figures; null: none (0007; overrides before). */
  monthly_quota: number | null;
  bulk_quota: number | null;
  rate_limit: number | null;
  created_at: string;
  revoked_at: string | null;
  /** `api` or `dashboard` (the account's own use through the dashboard). */
  kind: Generated<string>;
  last_used_at: Generated<string | null>;
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

/** `account_usage`: one row per account per month; the account's quota is charged here. */
export interface AccountUsageTable {
  account_id: string;
  month: string;
  verifications: number;
  bulk_requests: number;
  last_verifications_grant: number;
}

/** `daily_usage`: display figures per account, day, key and metric (a status, `list_rows`, `bulk_requests`). */
export interface DailyUsageTable {
  account_id: string;
  api_key_id: string;
  day: string;
  metric: string;
  count: number;
}

/** `users`: people who sign in to the dashboard. */
export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: string;
  /** When the user followed the confirmation link; null: not yet (0014; earlier users: their creation). */
  email_confirmed_at: string | null;
  /** 1 for an operator (0015): the probe host's health and the operators' hints in the dashboard. */
  operator: Generated<number>;
}

/** `user_tokens` (migration 0014): one-time links sent to users' addresses, by their token's hash. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  /** `confirm_email` or `reset_password`. */
  purpose: string;
  created_at: string;
  expires_at: string;
}

/** `sessions`: signed-in browsers; only the token's hash is stored. */
export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** `lists`: one row per list job (migration 0002 explains the columns). */
export interface ListsTable {
  id: string;
  account_id: string;
  api_key_id: string;
  name: string;
  state: string;
  source: string;
  header: string | null;
  webhook_url: string | null;
  total_rows: Generated<number>;
  unique_addresses: Generated<number>;
  processed_rows: Generated<number>;
  processed_addresses: Generated<number>;
  count_valid: Generated<number>;
  count_probably_valid: Generated<number>;
  count_invalid: Generated<number>;
  count_invalid_syntax: Generated<number>;
  count_invalid_domain: Generated<number>;
  count_no_mx_records: Generated<number>;
  count_disposable: Generated<number>;
  count_role_based: Generated<number>;
  pause_reason: Generated<string | null>;
  message: Generated<string | null>;
  created_at: string;
  updated_at: string;
  started_at: Generated<string | null>;
  finished_at: Generated<string | null>;
  /** While set, the list waits for a re-check and holds no worker slot (migration 0005). */
  not_before: Generated<string | null>;
  /** When the list's rows and results were deleted for retention; the list stays (0018). */
  results_expired_at: Generated<string | null>;
}

/** `list_rows`: every uploaded row, in upload order. */
export interface ListRowsTable {
  list_id: string;
  row_number: number;
  email: string;
  /** Its address's domain: with the key, where the address is found (`list_addresses`' key). */
  domain: string;
  address_key: string;
  fields: string | null;
}

/** `list_addresses`: each unique address of a list, with its result once verified. */
export interface ListAddressesTable {
  list_id: string;
  address_key: string;
  first_row: number;
  email: string;
  domain: string;
  row_count: number;
  charged: Generated<number>;
  /**
   * The month (`YYYY-MM`) it was charged in, read only while `charged` is 1: set to the upload's
   * month beforehand, so a charge rewrites it in place (null for charges before 0006).
   */
  charged_month: Generated<string | null>;
  done: Generated<number>;
  attempts: Generated<number>;
  retry_at: Generated<string | null>;
  status: Generated<string | null>;
  /** The compact form (result-codec.ts), or JSON (text, or bytes on PostgreSQL) stored before it. */
  result: Generated<string | Uint8Array | null>;
}

/** `webhook_deliveries`: events to POST to a list's webhook, retried until delivered. */
export interface WebhookDeliveriesTable {
  id: string;
  list_id: string;
  url: string;
  event: string;
  body: string;
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: Generated<string | null>;
  last_error: Generated<string | null>;
  created_at: string;
}

/** Every table, keyed by name. */
/** `integrations`: connected email platforms (migration 0008); `credential` is sealed. */
export interface IntegrationsTable {
  id: string;
  account_id: string;
  provider: string;
  account_name: string;
  provider_account_id: string;
  dc: string;
  state: string;
  message: string | null;
  auth_kind: string;
  credential: string;
  created_at: string;
}

/** `integration_watches` (migration 0009): only the hook token's hash is stored. */
export interface IntegrationWatchesTable {
  id: string;
  account_id: string;
  integration_id: string;
  audience_id: string;
  token_hash: string;
  webhook_id: string | null;
  created_at: string;
  /** Migration 0019: a polled watch's last look (the newest `createdate` seen); null otherwise. */
  poll_cursor: string | null;
}

/** `integration_watch_members`: when a watch last verified a member. */
export interface IntegrationWatchMembersTable {
  watch_id: string;
  member_id: string;
  verified_at: string;
  /** Migration 0019: the member's address key, for a deletion that names only the member; null before. */
  address_key: string | null;
}

/** `integration_runs` (migration 0010): `request` and the counters' JSON columns are text. */
export interface IntegrationRunsTable {
  id: string;
  account_id: string;
  integration_id: string;
  audience_id: string;
  audience_name: string;
  /** `<integration>:<audience>` while the run has not ended, else null: unique. */
  active_audience: string | null;
  trigger: string;
  schedule_id: string | null;
  state: string;
  request: string;
  list_id: string | null;
  changed_since: string | null;
  read_at: string | null;
  members: Generated<number>;
  written: Generated<number>;
  write_errors: Generated<number>;
  write_cursor: Generated<number>;
  pending_jobs: Generated<string>;
  categories: string | null;
  message: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** `integration_schedules` (migration 0011): `statuses` and `write_back` are JSON text; `paused` 0 or 1. */
export interface IntegrationSchedulesTable {
  id: string;
  account_id: string;
  integration_id: string;
  audience_id: string;
  cron: string;
  timezone: string;
  scope: string;
  stale_days: number;
  statuses: string;
  write_back: string | null;
  paused: number;
  next_run_at: string | null;
  last_run_at: string | null;
  last_run_id: string | null;
  last_error: string | null;
  created_at: string;
}

/** `feedback_events` (migration 0012): an account's reported outcomes, one row per identity. */
export interface FeedbackEventsTable {
  account_id: string;
  email_normalized: string;
  domain: string;
  event: string;
  at: string;
  created_at: string;
}

/** `campaign_checks` (migration 0013): each integration's last pre-campaign check; `result` is JSON text. */
export interface CampaignChecksTable {
  integration_id: string;
  account_id: string;
  campaign_id: string;
  verify_unverified: number;
  result: string;
  checked_at: string;
}

/** `audit_log` (migration 0017): every change in an account, appended; `details` is JSON text. */
export interface AuditLogTable {
  account_id: string;
  id: string;
  at: string;
  actor_type: string;
  actor_id: string;
  actor_label: string;
  ip: string | null;
  action: string;
  target_type: string;
  target_id: string;
  details: string;
}

export interface DatabaseSchema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  account_usage: AccountUsageTable;
  daily_usage: DailyUsageTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_tokens: UserTokensTable;
  lists: ListsTable;
  list_rows: ListRowsTable;
  list_addresses: ListAddressesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  integrations: IntegrationsTable;
  integration_watches: IntegrationWatchesTable;
  integration_watch_members: IntegrationWatchMembersTable;
  integration_runs: IntegrationRunsTable;
  integration_schedules: IntegrationSchedulesTable;
  feedback_events: FeedbackEventsTable;
  campaign_checks: CampaignChecksTable;
  audit_log: AuditLogTable;
}
