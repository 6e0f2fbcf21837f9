/**
 * Mapping between `lists` rows and `ListRecord`, shared by both backends.
 */
import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { ListRecord, ListState, PauseReason } from '../../lists/ports.ts';
import { domainOfKey } from '../../usage/verification-service.ts';
import type { Status } from '../../verification/report.ts';
import type { ListsTable } from './schema.ts';

/** A per-status count column of `lists`. */
export type CountColumn = `count_${Lowercase<Status>}`;

const COLUMN_OF: { readonly [S in Status]: `count_${Lowercase<S>}` } = {
  VALID: 'count_valid',
  PROBABLY_VALID: 'count_probably_valid',
  INVALID: 'count_invalid',
  INVALID_SYNTAX: 'count_invalid_syntax',
  INVALID_DOMAIN: 'count_invalid_domain',
  NO_MX_RECORDS: 'count_no_mx_records',
  DISPOSABLE: 'count_disposable',
  ROLE_BASED: 'count_role_based',
};

/** Every per-status count column, in the order of the statuses. */
export const STATUS_COUNT_COLUMNS: readonly CountColumn[] = Object.values(COLUMN_OF);

/** The count column of a status. */
export function countColumnOf(status: Status): CountColumn {
  return COLUMN_OF[status];
}

/** A `lists` row as the port's record. */
export function toListRecord(row: Selectable<ListsTable>): ListRecord {
  const byStatus = {} as Record<Status, number>;
  for (const [status, column] of Object.entries(COLUMN_OF) as Array<[Status, CountColumn]>) {
    byStatus[status] = Number(row[column]);
  }
  return {
    id: row.id,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    name: row.name,
    state: row.state as ListState,
    source: row.source === 'csv' ? 'csv' : 'json',
    header: row.header === null ? null : (JSON.parse(row.header) as string[]),
    webhookUrl: row.webhook_url,
    counts: {
      total: Number(row.total_rows),
      unique: Number(row.unique_addresses),
      processed: Number(row.processed_rows),
      byStatus,
    },
    processedAddresses: Number(row.processed_addresses),
    pauseReason: row.pause_reason as PauseReason | null,
    message: row.message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    resultsExpiredAt: row.results_expired_at,
    // A paused list may keep the time of a wait it was in: only a running one is waiting.
    ...(row.state === 'running' && row.not_before !== null && { recheckAt: row.not_before }),
  };
}

/**
 * `list_addresses` rows of these keys, as a condition on their key (domain, address): addresses are
 * stored and found by it, never by the address alone (see domainOfKey).
 */
export function addressKeysIn(addressKeys: readonly string[]): RawBuilder<boolean> {
  const pairs = addressKeys.map((key) => sql`(${domainOfKey(key)}, ${key})`);
  return sql<boolean>`(domain, address_key) in (${sql.join(pairs)})`;
}

/**
 * The same condition for PostgreSQL, one array parameter a domain: a runner's batch is one
 * domain's, and PostgreSQL plans `domain = $1 and address_key = any($2)` as one index scan, where a
 * list of 200 pairs costs 200 parameters and a 200-way OR to plan on every statement.
 */
export function addressKeysAny(addressKeys: readonly string[]): RawBuilder<boolean> {
  const byDomain = new Map<string, string[]>();
  for (const key of addressKeys) {
    const domain = domainOfKey(key);
    const keys = byDomain.get(domain);
    if (keys === undefined) byDomain.set(domain, [key]);
    else keys.push(key);
  }
  const parts = [...byDomain].map(
    ([domain, keys]) => sql`(domain = ${domain} and address_key = any(${keys}::text[]))`,
  );
  return sql<boolean>`(${sql.join(parts, sql` or `)})`;
}
