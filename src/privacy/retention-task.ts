/**
 * The retention sweep, a periodic task of the job runtime: finished lists past their account's
 * retention lose their rows and results, the list records staying. Each list is first marked
 * expired (one conditional UPDATE: of several processes, one takes it, and downloads answer 410
 * from then on), then emptied in slices of a few hundred rows, each its own short statement with a
 * turn of the event loop between, so SQLite's one writer is never held long; then the freed pages
 * are given back for reuse. A process that stopped mid-list leaves the rest to the next start.
 */
import { DEFAULT_PLAN, type Plan } from '../accounts/plans.ts';
import type { PeriodicTask } from '../jobs/periodic-tasks.ts';
import type { RetentionStore } from './ports.ts';
import { planMaxRetentionDays, retentionDaysOf } from './retention.ts';

export interface RetentionTaskDeps {
  store: RetentionStore;
  plans: Readonly<Record<string, Plan>>;
  /** MAILVET_RETENTION_DAYS. */
  defaultDays: number;
  now: () => Date;
  /** How often it runs, ms (default 5 minutes). */
  everyMs?: number;
  /** Rows (then addresses) deleted per statement. */
  sliceRows?: number;
  log: (level: 'info', message: string, fields?: Record<string, unknown>) => void;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Lists emptied per run at most: a backlog goes over a few runs. */
const LISTS_PER_RUN = 20;
export const RETENTION_SLICE_ROWS = 500;
/** Pages given back after each list (4 KiB each): the file shrinks by up to 40 MiB a list. */
const RECLAIM_PAGES = 10_000;

/** Empties the lists past their retention at `now()`; returns how many lists expired. */
export async function expireResults(
  deps: Omit<RetentionTaskDeps, 'everyMs' | 'log'>,
  resumeLeftovers = false,
): Promise<number> {
  const now = deps.now();
  const slice = deps.sliceRows ?? RETENTION_SLICE_ROWS;
  if (resumeLeftovers) {
    for (const listId of await deps.store.expiredListsWithRows(LISTS_PER_RUN))
      await empty(deps.store, listId, slice);
  }
  let expired = 0;
  for (const account of await deps.store.accountsWithKeptResults()) {
    if (expired >= LISTS_PER_RUN) break;
    const plan = deps.plans[account.plan] ?? deps.plans[DEFAULT_PLAN];
    const days = retentionDaysOf(account.retentionDays, deps.defaultDays, planMaxRetentionDays(plan));
    if (days === 0) continue;
    const before = new Date(now.getTime() - days * DAY_MS);
    if (account.oldestFinishedAt >= before.toISOString()) continue;
    for (const listId of await deps.store.listsEndedBefore(
      account.accountId,
      before,
      LISTS_PER_RUN - expired,
    )) {
      if (!(await deps.store.markResultsExpired(listId, now))) continue;
      expired += 1;
      await empty(deps.store, listId, slice);
    }
  }
  return expired;
}

async function empty(store: RetentionStore, listId: string, slice: number): Promise<void> {
  while ((await store.deleteResultSlice(listId, slice)) > 0) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  await store.reclaimSpace(RECLAIM_PAGES);
}

/** The periodic task (once at start, resuming lists a stopped process left half-emptied). */
export function retentionTask(deps: RetentionTaskDeps): PeriodicTask {
  let first = true;
  return {
    name: 'results retention',
    everyMs: deps.everyMs ?? 5 * 60 * 1000,
    runAtStart: true,
    run: async () => {
      const expired = await expireResults(deps, first);
      first = false;
      if (expired > 0)
        deps.log('info', 'list results deleted at the end of their retention', { lists: expired });
    },
  };
}
