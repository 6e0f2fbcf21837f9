/**
 * Schedules of integration runs: a cron expression in a time zone starts a run of an
 * audience at each slot. The store holds when each schedule is due next, so schedules survive
 * restarts, and a slot is claimed with one conditional update, so of any number of processes
 * exactly one starts its run.
 */
import type { MemberStatus, WriteBackOptions } from '../ports.ts';
import type { RunScope } from '../runs/ports.ts';

/** A schedule as stored. */
export interface Schedule {
  id: string;
  accountId: string;
  integrationId: string;
  audienceId: string;
  /** Five fields (minute hour day-of-month month day-of-week), or a nickname such as `@daily`. */
  cron: string;
  /** The IANA time zone the expression is read in. */
  timezone: string;
  scope: RunScope;
  staleDays: number;
  statuses: MemberStatus[];
  /** null: dry runs. */
  writeBack: WriteBackOptions | null;
  paused: boolean;
  /** The slot due next (ISO instant); null while paused, or when the expression matches no later date. */
  nextRunAt: string | null;
  /** When the schedule last fired, whether or not it started a run then. */
  lastRunAt: string | null;
  /** The run its last firing started; null when it started none. */
  lastRunId: string | null;
  /** Why its last firing started no run; null when it started one. */
  lastError: string | null;
  createdAt: string;
}

/** What a change may set. */
export type SchedulePatch = Partial<
  Pick<
    Schedule,
    'cron' | 'timezone' | 'scope' | 'staleDays' | 'statuses' | 'writeBack' | 'paused' | 'nextRunAt'
  >
>;

/** What the last firing of a schedule did. */
export interface ScheduleFiring {
  at: string;
  runId: string | null;
  error: string | null;
}

export type CreateScheduleOutcome = 'created' | 'not_found' | 'full';

export interface ScheduleStore {
  /**
   * Stores the schedule unless its integration (the account's) is gone (`not_found`) or already has
   * `max` schedules (`full`). The count and the insert are one transaction holding the
   * integration's row, so concurrent creations never pass the cap.
   */
  createSchedule(schedule: Schedule, max: number): Promise<CreateScheduleOutcome>;
  /** The account's schedule of this integration; null when none (or another account's). */
  findSchedule(accountId: string, integrationId: string, id: string): Promise<Schedule | null>;
  /** The integration's schedules, oldest first. */
  listSchedules(accountId: string, integrationId: string): Promise<Schedule[]>;
  /** Changes the account's schedule; the schedule after, or null when there is none. */
  updateSchedule(
    accountId: string,
    integrationId: string,
    id: string,
    patch: SchedulePatch,
  ): Promise<Schedule | null>;
  /** False when there was none. */
  deleteSchedule(accountId: string, integrationId: string, id: string): Promise<boolean>;
  /** Schedules of every account not paused and due at `now`, the longest due first, `limit` at most. */
  dueSchedules(now: string, limit: number): Promise<Schedule[]>;
  /**
   * Claims the slot `due` of the schedule by moving its next run to `next`: true for the one caller
   * whose update changed the row (one conditional UPDATE), false when another claimed it first or the
   * schedule changed meanwhile.
   */
  claimSlot(id: string, due: string, next: string | null): Promise<boolean>;
  /** Records what the schedule's last firing did. */
  recordFiring(id: string, firing: ScheduleFiring): Promise<void>;
}
