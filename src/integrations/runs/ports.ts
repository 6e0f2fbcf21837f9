/**
 * Runs of an integration: an audience's members read, verified as a list job and
 * written back. A run's whole state lives in the store, so any worker takes it up where another
 * stopped: the phase it is in, the list its members went to, how far write-back got and the
 * platform jobs (batches) still to count.
 */
import type { MemberStatus, WriteBackOptions } from '../ports.ts';

/** The job kind of runs. */
export const RUN_JOB = 'integration-run';

/**
 * The stored phases. `paused` is not among them: a run is paused when its list is (its quota ran
 * out, or its owner paused the list), and it goes on when the list does.
 */
export const STORED_RUN_STATES = [
  'queued',
  'reading',
  'verifying',
  'writing',
  'completed',
  'failed',
  'cancelled',
] as const;
export type StoredRunState = (typeof STORED_RUN_STATES)[number];

/** What a client sees. */
export type RunState = StoredRunState | 'paused';

/** The phases of a run that has not ended. */
export const ACTIVE_RUN_STATES = ['queued', 'reading', 'verifying', 'writing'] as const;

export type RunScope = 'all' | 'changed' | 'stale';

/** What a run reads and writes: the request's choices. */
export interface RunRequest {
  audienceId: string;
  statuses: readonly MemberStatus[];
  scope: RunScope;
  /** For `stale`: members whose MV_CHECKED is older than this many days (or missing). */
  staleDays: number;
  /** null: a dry run, nothing written to the platform. */
  writeBack: WriteBackOptions | null;
}

/** Who started a run. */
export type RunTrigger = 'manual' | 'schedule';

/** Counts kept on the run itself (the verification counts are its list's). */
export interface RunProgress {
  /** Members read into the list. */
  members: number;
  written: number;
  writeErrors: number;
}

/** Per category of the verified members, kept when verification ends (the list may expire later). */
export interface RunCategories {
  verified: number;
  valid: number;
  risky: number;
  invalid: number;
}

export interface IntegrationRun extends RunRequest, RunProgress {
  id: string;
  accountId: string;
  integrationId: string;
  audienceName: string;
  trigger: RunTrigger;
  scheduleId: string | null;
  state: StoredRunState;
  /** The list job its members were verified in; null before reading began. */
  listId: string | null;
  /** For `changed`: only members changed at or after this instant (fixed when the run starts reading). */
  changedSince: string | null;
  /** When reading began: the next `changed` run starts from here. */
  readAt: string | null;
  /** Rows of the list already handed to the platform in write jobs. */
  writeCursor: number;
  /** Platform write jobs submitted whose outcome is not counted yet. */
  pendingJobs: string[];
  categories: RunCategories | null;
  message: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A change of a run's stored fields, made only while it is in one of the expected states. */
export type RunPatch = Partial<
  Pick<
    IntegrationRun,
    | 'listId'
    | 'changedSince'
    | 'readAt'
    | 'members'
    | 'written'
    | 'writeErrors'
    | 'writeCursor'
    | 'pendingJobs'
    | 'categories'
    | 'message'
    | 'startedAt'
    | 'finishedAt'
  >
>;

export interface RunStore {
  /** Stores a new run, unless the audience has an active run already: then null. Atomic. */
  createRun(run: IntegrationRun): Promise<IntegrationRun | null>;
  /** The account's run of this integration; null when none (or another account's). */
  findRun(accountId: string, integrationId: string, id: string): Promise<IntegrationRun | null>;
  /** The run, whoever owns it (the worker's read). */
  getRun(id: string): Promise<IntegrationRun | null>;
  /** An integration's runs, newest first, `limit` at most, before the cursor (the last one seen). */
  listRuns(
    accountId: string,
    integrationId: string,
    limit: number,
    before?: { createdAt: string; id: string },
  ): Promise<IntegrationRun[]>;
  /** Each audience's latest run of the integration. */
  latestRuns(accountId: string, integrationId: string): Promise<IntegrationRun[]>;
  /** The audience's latest completed run; null when none. */
  lastCompletedRun(integrationId: string, audienceId: string): Promise<IntegrationRun | null>;
  /**
   * Moves a run in one of `from` to `to` (the same state to only patch it) with `patch`, at `now`;
   * false when it was in none of them. One conditional UPDATE.
   */
  updateRun(
    id: string,
    from: readonly StoredRunState[],
    to: StoredRunState,
    now: string,
    patch?: RunPatch,
  ): Promise<boolean>;
  /** Ids of runs that have not ended (queued, reading, verifying, writing): the sweep queues them. */
  activeRunIds(): Promise<string[]>;
}
