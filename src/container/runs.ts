/**
 * The composition of integration runs, beside `index.ts`: the service the API and
 * schedules start runs with, and the worker side, both over the account's list storage and its own
 * (dashboard) key, so a run's verifications count like the account's other lists.
 */
import type { Plan } from '../accounts/plans.ts';
import { effectiveLimits, storageLimits } from '../accounts/plans.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { FeedbackService } from '../feedback/feedback-service.ts';
import type { IntegrationService } from '../integrations/integration-service.ts';
import { RUN_JOB } from '../integrations/runs/ports.ts';
import { RunService } from '../integrations/runs/run-service.ts';
import { RunWorker } from '../integrations/runs/run-worker.ts';
import type { PeriodicTask } from '../jobs/periodic-tasks.ts';
import type { JobQueue } from '../jobs/ports.ts';
import type { ListService } from '../lists/list-service.ts';
import type { Store } from '../store.ts';
import type { Logger } from './logger.ts';

export interface RunDeps {
  store: Pick<Store, 'runs' | 'lists' | 'findAccount' | 'dashboardKey'>;
  plans: Readonly<Record<string, Plan>>;
  integrations: IntegrationService;
  lists: ListService;
  queue: Pick<JobQueue, 'enqueue'>;
  log: Logger;
  now?: () => Date;
  /** Records audiences' cleaned members as hard bounces (the worker side). */
  feedback?: FeedbackService;
  /** Records the runs people start and cancel (the API side). */
  audit?: AuditTrail;
}

/** The rows another list of the account may hold (throws ListLimitError when it has no room). */
function listRoom(deps: RunDeps): (accountId: string) => Promise<{ rows: number; maxStoredRows: number }> {
  return async (accountId) => {
    const account = await deps.store.findAccount(accountId);
    if (account === null) throw new Error(`account ${accountId} is gone`);
    // The account's own figures decide its storage: no key is needed to read them.
    const limits = storageLimits(effectiveLimits(deps.plans, account.plan, account));
    return { rows: await deps.lists.room(accountId, limits), maxStoredRows: limits.maxStoredRows };
  };
}

/** Runs for the API and schedules. */
export function createRuns(deps: RunDeps): RunService {
  const room = listRoom(deps);
  return new RunService({
    integrations: deps.integrations,
    runs: deps.store.runs,
    lists: deps.lists,
    queue: deps.queue,
    checkRoom: async (accountId) => {
      await room(accountId);
    },
    ...(deps.now && { now: deps.now }),
    ...(deps.audit && { audit: deps.audit }),
    onEnqueueError: (runId, error) =>
      deps.log.warn({ err: error, runId }, 'run not queued yet (the sweep will)'),
  });
}

/** The worker side: the job handler of runs. */
export function createRunWorker(deps: RunDeps & { pollMs?: number }): RunWorker {
  return new RunWorker({
    runs: deps.store.runs,
    integrations: deps.integrations,
    lists: deps.lists,
    listStore: deps.store.lists,
    listRoom: listRoom(deps),
    chargeKeyId: async (accountId) => (await deps.store.dashboardKey(accountId)).id,
    ...(deps.now && { now: deps.now }),
    ...(deps.pollMs !== undefined && { pollMs: deps.pollMs }),
    log: (level, message, fields) => deps.log[level](fields ?? {}, message),
    ...(deps.feedback && { feedback: deps.feedback }),
  });
}

/** Queues every run that has not ended, so one whose message was lost, or whose worker died, goes on. */
export function runSweepTask(deps: Pick<RunDeps, 'store' | 'queue'> & { everyMs: number }): PeriodicTask {
  return {
    name: 'run sweep',
    everyMs: deps.everyMs,
    runAtStart: true,
    run: async () => {
      for (const id of await deps.store.runs.activeRunIds()) await deps.queue.enqueue({ kind: RUN_JOB, id });
    },
  };
}
