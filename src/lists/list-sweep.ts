/**
 * List jobs on the job runtime: the `list` job kind (its handler takes lists in turn by account,
 * see list-turns.ts) and the list sweep, a periodic task safe on any number of processes at once
 * because the store arbitrates:
 * - unfinished uploads of a process that died are removed;
 * - lists paused for quota resume once their key has quota again (a new month, a higher quota);
 * - runnable lists are (re-)queued, so a list whose message was lost or whose worker died resumes.
 * Finished lists' results past their retention are deleted by the retention task
 * (privacy/retention-task.ts); the lists themselves stay.
 */
import type { Plan } from '../accounts/plans.ts';
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
