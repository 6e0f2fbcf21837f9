/**
 * The public shape of a list job, as `GET /api/v1/lists/{id}` answers it and as the
 * completion webhook carries it. One function, so the two can never disagree.
 */
import type { Status } from '../verification/report.ts';
import type { ListRecord, ListState } from './ports.ts';

/** Per-status row counts, keyed by the status in lower case (`VALID` → `valid`). */
export type StatusCounts = Record<Lowercase<Status>, number>;

/** A list as clients see it. */
export interface ListView {
  id: string;
  name: string;
  state: ListState;
  source: 'json' | 'csv';
  counts: { total: number; unique: number; processed: number } & StatusCounts;
  /** Processed rows over total rows, 0 to 1. */
  progress: number;
  /** Why the list stopped early (quota used up, key revoked), or null. */
  message: string | null;
  /**
   * While the list waits for re-checks (greylisted, timed-out or unreachable servers, our DNS
   * failing), the rows still without a final result and when the next re-check is due; else null.
   */
  rechecks: { pending: number; next_at: string } | null;
  webhook_url: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /**
   * True once the rows and results were deleted at the end of the account's retention: the list
   * stays with its counts, and its results answer 410 `results_expired`.
   */
  results_expired: boolean;
  /** When they were deleted; null while kept. */
  results_expired_at: string | null;
  links: { self: string; results: string };
}

/** The view of a stored list. */
export function listView(list: ListRecord): ListView {
  const { total, unique, processed, byStatus } = list.counts;
  const statusCounts = Object.fromEntries(
    Object.entries(byStatus).map(([status, count]) => [status.toLowerCase(), count]),
  ) as StatusCounts;
  const self = `/api/v1/lists/${list.id}`;
  return {
    id: list.id,
    name: list.name,
    state: list.state,
    source: list.source,
    counts: { total, unique, processed, ...statusCounts },
    progress: total === 0 ? (list.state === 'completed' ? 1 : 0) : Math.min(1, processed / total),
    message: list.message,
    // Waiting means every address left holds a provisional result, so the rows left are those.
    rechecks:
      list.recheckAt === undefined
        ? null
        : { pending: Math.max(0, total - processed), next_at: list.recheckAt },
    webhook_url: list.webhookUrl,
    created_at: list.createdAt,
    started_at: list.startedAt,
    finished_at: list.finishedAt,
    updated_at: list.updatedAt,
    results_expired: (list.resultsExpiredAt ?? null) !== null,
    results_expired_at: list.resultsExpiredAt ?? null,
    links: { self, results: `${self}/results` },
  };
}
