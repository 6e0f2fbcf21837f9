/**
 * A process's share of list-job work (`mailvet worker`, or `mailvet serve` with its in-process
 * worker): consumes the queue with the runner, taking lists in turn by account (list-turns.ts),
 * and keeps three sweeps going, each safe to run on
 * any number of processes at once because the store arbitrates:
 * - runnable lists are (re-)queued, so a list whose message was lost or whose worker died resumes;
 * - lists paused for quota resume once their key has quota again (a new month, a higher quota);
 * - due webhook deliveries are sent;
 * - finished lists past their plan's retention are deleted, rows and results with them (SQLite
 *   reuses the freed pages for later lists).
 */
import { DEFAULT_PLAN, effectiveLimits, type Plan, storageLimits } from '../accounts/plans.ts';
import type { Store } from '../accounts/ports.ts';
import type { JobQueue } from '../jobs/ports.ts';
import { monthOf } from '../usage/months.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import type { ListRunner } from './list-runner.ts';
import { listTurnsHandler } from './list-turns.ts';

export interface ListWorkerDeps {
  store: Store;
  plans: Readonly<Record<string, Plan>>;
  queue: JobQueue;
  runner: Pick<ListRunner, 'run'>;
  webhooks: Pick<WebhookDispatcher, 'deliverDue'>;
  /** Lists worked on at once by this process (default 2). */
  concurrency?: number;
  /** How often runnable and quota-paused lists are swept, ms (default 30 s). */
  sweepIntervalMs?: number;
  /** How often due webhooks are looked for, ms (default 1 s). */
  webhookIntervalMs?: number;
  now?: () => Date;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** An upload older than this with no progress belongs to a process that died mid-upload. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** A running worker; `close` stops it gracefully. */
export interface ListWorker {
  close(): Promise<void>;
}

/** Starts consuming list jobs and the sweeps. */
export async function startListWorker(deps: ListWorkerDeps): Promise<ListWorker> {
  const now = deps.now ?? (() => new Date());
  // Fair between accounts, a cap per account, and no slot held while a list waits for a re-check.
  const handler = listTurnsHandler({ ...deps, now });
  deps.queue.consume(handler, { concurrency: deps.concurrency ?? 2 });

  const sweep = async (): Promise<void> => {
    const removed = await deps.store.lists.deleteStaleUploads(new Date(now().getTime() - STALE_UPLOAD_MS));
    if (removed > 0) deps.log('info', 'removed unfinished uploads', { removed });
    await resumeQuotaPaused(deps, now());
    for (const listId of await deps.store.lists.runnableListIds()) await deps.queue.enqueue(listId);
    const expired = await deleteExpiredLists(deps, now());
    if (expired > 0) deps.log('info', 'deleted lists past their retention', { deleted: expired });
  };
  const guarded = (name: string, work: () => Promise<void>) => {
    let running = false;
    return () => {
      // One at a time: a slow sweep must not pile up behind itself.
      if (running) return;
      running = true;
      work()
        .catch((error: unknown) => deps.log('warn', `${name} failed; it runs again soon`, { err: error }))
        .finally(() => {
          running = false;
        });
    };
  };
  const sweepNow = guarded('list sweep', sweep);
  const deliverNow = guarded('webhook delivery', () => deps.webhooks.deliverDue());
  sweepNow();
  const timers = [
    setInterval(sweepNow, deps.sweepIntervalMs ?? 30_000),
    setInterval(deliverNow, deps.webhookIntervalMs ?? 1_000),
  ];
  for (const timer of timers) timer.unref();

  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        await deps.queue.close();
      })();
      return closing;
    },
  };
}

/** Queues again every list paused for quota whose key has quota again this month. */
async function resumeQuotaPaused(deps: ListWorkerDeps, at: Date): Promise<void> {
  for (const { id, apiKeyId } of await deps.store.lists.quotaPausedLists()) {
    const key = await deps.store.findApiKeyById(apiKeyId);
    if (key === null || key.revokedAt !== null) continue;
    const { monthlyVerifications } = effectiveLimits(deps.plans, key.plan, key);
    const usage = await deps.store.usage(apiKeyId, monthOf(at));
    if (usage.verifications >= monthlyVerifications) continue;
    const resumed = await deps.store.lists.transition(id, ['paused'], 'queued', at, {
      pauseReason: null,
      message: null,
    });
    if (resumed) {
      deps.log('info', 'list resumed: quota available again', { listId: id });
      await deps.queue.enqueue(id);
    }
  }
}

/** Lists deleted per sweep at most: a backlog goes over a few sweeps, never one long stall. */
const EXPIRED_PER_SWEEP = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes finished lists past their key's plan's retention; returns how many. */
async function deleteExpiredLists(deps: ListWorkerDeps, now: Date): Promise<number> {
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
