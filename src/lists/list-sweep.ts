/**
 * List jobs on the job runtime: the `list` job kind (its handler takes lists in turn by account,
 * see list-turns.ts) and the list sweep, a periodic task safe on any number of processes at once
 * because the store arbitrates:
 * - unfinished uploads of a process that died are removed;
 * - lists paused for quota resume once their key has quota again (a new month, a higher quota);
 * - runnable lists are (re-)queued, so a list whose message was lost or whose worker died resumes;
 * - finished lists past their plan's retention are deleted, rows and results with them (SQLite
 *   reuses the freed pages for later lists).
 */
import { DEFAULT_PLAN, type Plan, storageLimits } from '../accounts/plans.ts';
import type { AccountStore } from '../accounts/ports.ts';
import type { PeriodicTask } from '../jobs/periodic-tasks.ts';
import type { JobQueue } from '../jobs/ports.ts';
import { meterOfKey, remainingUnder, verificationCeiling } from '../usage/meter.ts';
import { monthOf } from '../usage/months.ts';
import type { UsageStore } from '../usage/ports.ts';
import { type ListStore, listJob } from './ports.ts';

export interface ListSweepDeps {
  store: Pick<AccountStore, 'findApiKeyById' | 'findAccount'> &
    Pick<UsageStore, 'usage'> & { lists: ListStore };
  plans: Readonly<Record<string, Plan>>;
  queue: Pick<JobQueue, 'enqueue'>;
  /** How often the sweep runs, ms (default 30 s). */
  everyMs?: number;
  now?: () => Date;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** An upload older than this with no progress belongs to a process that died mid-upload. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** The list sweep as a periodic task; it also runs once when the process starts. */
export function listSweepTask(deps: ListSweepDeps): PeriodicTask {
  const now = deps.now ?? (() => new Date());
  return {
    name: 'list sweep',
    everyMs: deps.everyMs ?? 30_000,
    runAtStart: true,
    run: async () => {
      const removed = await deps.store.lists.deleteStaleUploads(new Date(now().getTime() - STALE_UPLOAD_MS));
      if (removed > 0) deps.log('info', 'removed unfinished uploads', { removed });
      await resumeQuotaPaused(deps, now());
      for (const listId of await deps.store.lists.runnableListIds())
        await deps.queue.enqueue(listJob(listId));
      const expired = await deleteExpiredLists(deps, now());
      if (expired > 0) deps.log('info', 'deleted lists past their retention', { deleted: expired });
    },
  };
}

/** Queues again every list paused for quota whose key has quota again this month. */
async function resumeQuotaPaused(deps: ListSweepDeps, at: Date): Promise<void> {
  for (const { id, apiKeyId } of await deps.store.lists.quotaPausedLists()) {
    const found = await meterOfKey(deps.store, deps.plans, apiKeyId);
    if (found === null || found.key.revokedAt !== null) continue;
    const usage = await deps.store.usage(found.meter, monthOf(at));
    const used = { account: usage.account.verifications, key: usage.key.verifications };
    if (remainingUnder(verificationCeiling(found.meter), used) === 0) continue;
    const resumed = await deps.store.lists.transition(id, ['paused'], 'queued', at, {
      pauseReason: null,
      message: null,
    });
    if (resumed) {
      deps.log('info', 'list resumed: quota available again', { listId: id });
      await deps.queue.enqueue(listJob(id));
    }
  }
}

/** Lists deleted per sweep at most: a backlog goes over a few sweeps, never one long stall. */
const EXPIRED_PER_SWEEP = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes finished lists past their key's plan's retention; returns how many. */
async function deleteExpiredLists(deps: ListSweepDeps, now: Date): Promise<number> {
  const cutoff = (plan: Plan | undefined) =>
    new Date(now.getTime() - storageLimits(plan).retentionDays * DAY_MS);
  const endedBefore = Object.fromEntries(
    Object.entries(deps.plans).map(([name, plan]) => [name, cutoff(plan)]),
  );
  // A key on a plan the plans file no longer has is treated as on the default plan (as its limits are).
  const expired = await deps.store.lists.expiredLists(
    endedBefore,
    cutoff(deps.plans[DEFAULT_PLAN]),
    EXPIRED_PER_SWEEP,
  );
  for (const listId of expired) await deps.store.lists.deleteList(listId);
  return expired.length;
}
