/**
 * The usage report of `GET /api/v1/usage`: every day of the range with its verifications by
 * status, bulk requests and list rows, and the totals of each key (the dashboard's own use as the
 * key `null`) that had any use in the range.
 */
import type { ApiKeyRecord } from '../accounts/ports.ts';
import { STATUS_NAMES, type Status } from '../verification/report.ts';
import type { DailyUsage } from './ports.ts';

type StatusCounts = Record<Status, number>;

export interface UsageReport {
  from: string;
  to: string;
  days: Array<{
    date: string;
    verifications: StatusCounts;
    total: number;
    bulk_requests: number;
    list_rows: number;
  }>;
  keys: Array<{
    id: string | null;
    name: string;
    prefix: string | null;
    verifications: number;
    bulk_requests: number;
    list_rows: number;
  }>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Folds the stored daily figures into the report; `keys` names the account's API keys. */
export function usageReport(
  from: string,
  to: string,
  entries: readonly DailyUsage[],
  keys: readonly ApiKeyRecord[],
): UsageReport {
  const days = new Map<string, UsageReport['days'][number]>();
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const verifications = Object.fromEntries(STATUS_NAMES.map((status) => [status, 0])) as StatusCounts;
    days.set(date, { date, verifications, total: 0, bulk_requests: 0, list_rows: 0 });
  }
  const known = new Map(keys.map((key) => [key.id, key]));
  const perKey = new Map<string, UsageReport['keys'][number]>();
  for (const entry of entries) {
    const day = days.get(entry.day);
    if (day === undefined) continue;
    const key = known.get(entry.keyId);
    let totals = perKey.get(entry.keyId);
    if (totals === undefined) {
      totals = {
        id: key?.id ?? null,
        name: key?.name ?? 'Dashboard',
        prefix: key?.displayPrefix ?? null,
        verifications: 0,
        bulk_requests: 0,
        list_rows: 0,
      };
      perKey.set(entry.keyId, totals);
    }
    if (entry.metric === 'bulk_requests') {
      day.bulk_requests += entry.count;
      totals.bulk_requests += entry.count;
    } else if (entry.metric === 'list_rows') {
      day.list_rows += entry.count;
      totals.list_rows += entry.count;
    } else if ((STATUS_NAMES as string[]).includes(entry.metric)) {
      day.verifications[entry.metric as Status] += entry.count;
      day.total += entry.count;
      totals.verifications += entry.count;
    }
  }
  return { from, to, days: [...days.values()], keys: [...perKey.values()] };
}
