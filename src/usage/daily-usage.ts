/**
 * The daily figures of `GET /api/v1/usage` (verifications by status, bulk requests, list rows, per
 * key), counted in memory and added to the store once a second: display figures must not cost a
 * write per request. The quota itself is charged in the store at once, exactly; these may lose the
 * last second's counts in a crash.
 */
import type { DailyUsage, UsageOwner, UsageStore } from './ports.ts';

/** A figure of the day: a verification status, `list_rows` or `bulk_requests`. */
export type DailyMetric = string;

const DAY_MS = 86_400_000;
// The last day asked and where it starts: formatting the date on every request showed in profiles.
let known = { day: '', fromMs: 0 };

/** `YYYY-MM-DD` of the instant, in UTC. */
export function dayOf(at: Date): string {
  const ms = at.getTime();
  if (ms >= known.fromMs && ms < known.fromMs + DAY_MS) return known.day;
  const day = at.toISOString().slice(0, 10);
  known = { day, fromMs: ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS) };
  return day;
}

export class DailyUsageRecorder {
  readonly #store: Pick<UsageStore, 'addDailyUsage'>;
  /**
   * What was counted since the last flush, by key id: a few entries each (a day's statuses), looked
   * through in turn, instead of a name joining owner, day and metric made for each count.
   */
  #pending = new Map<string, DailyUsage[]>();

  constructor(store: Pick<UsageStore, 'addDailyUsage'>) {
    this.#store = store;
  }

  /** Counts `count` of `metric` for the owner on the UTC day of `at`. */
  record(owner: UsageOwner, metric: DailyMetric, count: number, at: Date): void {
    if (count <= 0) return;
    const day = dayOf(at);
    let mine = this.#pending.get(owner.keyId);
    if (mine === undefined) {
      mine = [];
      this.#pending.set(owner.keyId, mine);
    }
    for (const entry of mine) {
      if (entry.metric === metric && entry.day === day && entry.accountId === owner.accountId) {
        entry.count += count;
        return;
      }
    }
    mine.push({ accountId: owner.accountId, keyId: owner.keyId, day, metric, count });
  }

  /** Adds what was counted since the last flush to the store; on failure it is kept for the next. */
  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const entries = [...this.#pending.values()].flat();
    this.#pending = new Map();
    try {
      await this.#store.addDailyUsage(entries);
    } catch (error) {
      for (const entry of entries)
        this.record(entry, entry.metric, entry.count, new Date(`${entry.day}T00:00:00Z`));
      throw error;
    }
  }
}
