/**
 * The periodic task that starts scheduled runs, safe on any number of processes: each
 * due schedule's slot is claimed by moving its next run to the slot after now, in one conditional
 * update, and only the process whose update changed the row starts the run. Because the next slot
 * is counted from now, not from the slot that was due, a schedule that missed many slots while the
 * service was down runs once when it comes back (the task also runs at start), not once per slot.
 * A firing that starts no run (the audience busy, the integration disconnected, the platform down)
 * spends its slot and says why in the schedule's `last_error`.
 */
import type { PeriodicTask } from '../../jobs/periodic-tasks.ts';
import { ListLimitError } from '../../lists/list-limits.ts';
import { IntegrationDisconnected } from '../integration-service.ts';
import { ProviderError } from '../ports.ts';
import { type RunService, UnknownAudience } from '../runs/run-service.ts';
import { nextSlot } from './cron.ts';
import type { Schedule, ScheduleFiring, ScheduleStore } from './ports.ts';

export interface ScheduleTaskDeps {
  store: ScheduleStore;
  runs: Pick<RunService, 'start'>;
  /** How often due schedules are looked for, ms (default 15 s). */
  everyMs?: number;
  now?: () => Date;
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

/** Due schedules read at once. */
const DUE_PER_READ = 50;
/** Reads per tick at most: a backlog goes over a few ticks, never one long stall. */
const READS_PER_TICK = 10;

/** The schedules as a periodic task; it also runs once when the process starts. */
export function scheduleTask(deps: ScheduleTaskDeps): PeriodicTask {
  const now = deps.now ?? (() => new Date());
  return {
    name: 'integration schedules',
    everyMs: deps.everyMs ?? 15_000,
    runAtStart: true,
    run: async () => {
      for (let read = 0; read < READS_PER_TICK; read++) {
        const due = await deps.store.dueSchedules(now().toISOString(), DUE_PER_READ);
        for (const schedule of due) await fire(deps, schedule, now());
        if (due.length < DUE_PER_READ) return;
      }
    },
  };
}

/** Claims the schedule's due slot and, when this process won it, starts its run. */
async function fire(deps: ScheduleTaskDeps, schedule: Schedule, at: Date): Promise<void> {
  if (schedule.nextRunAt === null) return;
  const next = nextSlot(schedule.cron, schedule.timezone, at);
  if (!(await deps.store.claimSlot(schedule.id, schedule.nextRunAt, next))) return;
  // From here the slot is spent: a process dying now loses this one run, never starts it twice.
  const firing = await startRun(deps, schedule, at);
  await deps.store.recordFiring(schedule.id, firing);
  deps.log('info', firing.runId === null ? 'scheduled run not started' : 'scheduled run started', {
    scheduleId: schedule.id,
    slot: schedule.nextRunAt,
    runId: firing.runId,
    reason: firing.error,
  });
}

async function startRun(deps: ScheduleTaskDeps, schedule: Schedule, at: Date): Promise<ScheduleFiring> {
  const fired = (runId: string | null, error: string | null) => ({ at: at.toISOString(), runId, error });
  try {
    const outcome = await deps.runs.start(
      schedule.accountId,
      schedule.integrationId,
      {
        audienceId: schedule.audienceId,
        statuses: schedule.statuses,
        scope: schedule.scope,
        staleDays: schedule.staleDays,
        writeBack: schedule.writeBack,
      },
      { kind: 'schedule', scheduleId: schedule.id },
    );
    if (outcome.kind === 'ok') return fired(outcome.run.id, null);
    if (outcome.kind === 'busy') return fired(null, 'The audience had a run going: this slot was skipped');
    return fired(null, 'The integration no longer exists');
  } catch (error) {
    if (
      error instanceof UnknownAudience ||
      error instanceof IntegrationDisconnected ||
      error instanceof ProviderError ||
      error instanceof ListLimitError
    ) {
      return fired(null, error.message);
    }
    // Anything else is ours: its details stay in the log, not in what the owner reads.
    deps.log('warn', 'a scheduled run could not be started', { err: error, scheduleId: schedule.id });
    return fired(null, 'The run could not be started; the server log has the details');
  }
}
