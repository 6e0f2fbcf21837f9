/**
 * What the API (and schedules) do with runs: start one on an audience of a connected
 * integration, show runs with their list's live counts, cancel one. The work is the run worker's,
 * reached through the queue; one audience has at most one run going at a time.
 */
import { randomUUID } from 'node:crypto';
import { type AuditTrail, recordChange } from '../../audit/audit-trail.ts';
import type { Initiator } from '../../audit/ports.ts';
import type { JobQueue } from '../../jobs/ports.ts';
import type { ListService } from '../../lists/list-service.ts';
import type { ListRecord } from '../../lists/ports.ts';
import type { Status } from '../../verification/report.ts';
import { categoryOf } from '../categories.ts';
import type { IntegrationService } from '../integration-service.ts';
import {
  ACTIVE_RUN_STATES,
  type IntegrationRun,
  RUN_JOB,
  type RunCategories,
  type RunRequest,
  type RunState,
  type RunStore,
  type RunTrigger,
} from './ports.ts';

export interface RunServiceDeps {
  integrations: Pick<IntegrationService, 'get' | 'withSession' | 'labelOf'>;
  runs: RunStore;
  lists: Pick<ListService, 'get' | 'cancel'>;
  queue: Pick<JobQueue, 'enqueue'>;
  /**
   * Throws when the account has no room for another list (its plan's storage): a run's members
   * become a list.
   */
  checkRoom: (accountId: string) => Promise<void>;
  /** Records the runs someone (`by`) starts and cancels; a schedule's runs have no one. */
  audit?: AuditTrail;
  now?: () => Date;
  onEnqueueError?: (runId: string, error: unknown) => void;
}

/** The audience named in a run request is not one of the platform account's. */
export class UnknownAudience extends Error {
  constructor(
    readonly audienceId: string,
    platform: string,
  ) {
    super(`The ${platform} account has no audience ${audienceId}`);
    this.name = 'UnknownAudience';
  }
}

/** A run as a client sees it: the stored run with its list's live state and counts. */
export interface RunView {
  run: IntegrationRun;
  state: RunState;
  categories: RunCategories;
  message: string | null;
  /**
   * When the account's retention deleted its list's rows and results (the run's results, which
   * then answer 410); null while they are kept.
   */
  resultsExpiredAt: string | null;
}

export type StartOutcome =
  | { kind: 'ok'; run: IntegrationRun }
  | { kind: 'not_found' }
  /** The audience has a run going. */
  | { kind: 'busy' };

export type CancelOutcome =
  | { kind: 'ok'; view: RunView }
  | { kind: 'not_found' }
  | { kind: 'conflict'; state: RunState };

export class RunService {
  readonly #deps: RunServiceDeps;
  readonly #now: () => Date;

  constructor(deps: RunServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * Starts a run of the account's integration on one of its audiences (checked with the platform).
   * @throws UnknownAudience, IntegrationDisconnected, ProviderError, or the room check's error.
   */
  async start(
    accountId: string,
    integrationId: string,
    request: RunRequest,
    trigger: { kind: RunTrigger; scheduleId?: string } = { kind: 'manual' },
    by?: Initiator,
  ): Promise<StartOutcome> {
    const integration = await this.#deps.integrations.get(accountId, integrationId);
    if (integration === null) return { kind: 'not_found' };
    const audiences = await this.#deps.integrations.withSession(integration, (session) =>
      session.audiences(),
    );
    const audience = audiences.find((each) => each.id === request.audienceId);
    if (audience === undefined)
      throw new UnknownAudience(request.audienceId, this.#deps.integrations.labelOf(integration.provider));
    await this.#deps.checkRoom(accountId);
    const now = this.#now().toISOString();
    const run = await this.#deps.runs.createRun({
      id: `run_${randomUUID().replaceAll('-', '')}`,
      accountId,
      integrationId,
      audienceName: audience.name,
      ...request,
      trigger: trigger.kind,
      scheduleId: trigger.scheduleId ?? null,
      state: 'queued',
      listId: null,
      changedSince: null,
      readAt: null,
      members: 0,
      written: 0,
      writeErrors: 0,
      writeCursor: 0,
      pendingJobs: [],
      categories: null,
      message: null,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      finishedAt: null,
    });
    if (run === null) return { kind: 'busy' };
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'run.started',
      targetId: run.id,
      details: {
        integration_id: integrationId,
        audience_id: run.audienceId,
        audience_name: run.audienceName,
        scope: run.scope,
        dry_run: run.writeBack === null,
      },
    });
    await this.#enqueue(run.id);
    return { kind: 'ok', run };
  }

  /** Whether the account has this integration (an empty page of runs is not a missing integration). */
  async integrationExists(accountId: string, integrationId: string): Promise<boolean> {
    return (await this.#deps.integrations.get(accountId, integrationId)) !== null;
  }

  /** The account's run with its live state; null when none. */
  async get(accountId: string, integrationId: string, runId: string): Promise<RunView | null> {
    const run = await this.#deps.runs.findRun(accountId, integrationId, runId);
    return run === null ? null : this.view(run);
  }

  /** An integration's runs, newest first. */
  async page(
    accountId: string,
    integrationId: string,
    limit: number,
    before?: { createdAt: string; id: string },
  ): Promise<RunView[]> {
    const runs = await this.#deps.runs.listRuns(accountId, integrationId, limit, before);
    return Promise.all(runs.map((run) => this.view(run)));
  }

  /** Each audience's latest run, by audience id. */
  async latest(accountId: string, integrationId: string): Promise<Map<string, RunView>> {
    const runs = await this.#deps.runs.latestRuns(accountId, integrationId);
    const views = await Promise.all(runs.map((run) => this.view(run)));
    return new Map(views.map((view) => [view.run.audienceId, view]));
  }

  /**
   * Ends a run that has not ended: its list is cancelled (its results so far stay), and nothing
   * more is written; write jobs the platform already holds finish there.
   */
  async cancel(
    accountId: string,
    integrationId: string,
    runId: string,
    by?: Initiator,
  ): Promise<CancelOutcome> {
    const run = await this.#deps.runs.findRun(accountId, integrationId, runId);
    if (run === null) return { kind: 'not_found' };
    const now = this.#now().toISOString();
    const ending = { message: 'Cancelled by its owner.', finishedAt: now };
    // While reading, its list is half made: the worker removes it on seeing the run cancelled, so
    // the run stops pointing at it at once. Later, the list is whole and is cancelled with the run.
    const reading = ['queued', 'reading'] as const;
    const whileReading = await this.#deps.runs.updateRun(run.id, reading, 'cancelled', now, {
      ...ending,
      listId: null,
    });
    const cancelled =
      whileReading ||
      (await this.#deps.runs.updateRun(
        run.id,
        ACTIVE_RUN_STATES.filter((state) => !(reading as readonly string[]).includes(state)),
        'cancelled',
        now,
        ending,
      ));
    if (!cancelled) return { kind: 'conflict', state: (await this.view(run)).state };
    if (!whileReading && run.listId !== null) await this.#deps.lists.cancel(accountId, run.listId);
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'run.cancelled',
      targetId: run.id,
      details: { integration_id: integrationId, audience_id: run.audienceId },
    });
    const after = await this.#deps.runs.getRun(run.id);
    return { kind: 'ok', view: await this.view(after ?? run) };
  }

  /**
   * The run's state and counts as a client sees them: while verifying, its list's; once ended,
   * whether its list's results are still kept (retention expires a run's list like any other).
   */
  async view(run: IntegrationRun): Promise<RunView> {
    const list =
      run.listId !== null && (run.categories === null || ENDED_RUN_STATES.has(run.state))
        ? await this.#deps.lists.get(run.accountId, run.listId)
        : null;
    const categories = run.categories ?? (list === null ? emptyCategories() : categoriesOf(list));
    const resultsExpiredAt = list?.resultsExpiredAt ?? null;
    if (run.state === 'verifying' && list?.state === 'paused') {
      return {
        run,
        state: 'paused',
        categories,
        message: list.message ?? 'Its list is paused: resume the list to go on.',
        resultsExpiredAt,
      };
    }
    return { run, state: run.state, categories, message: run.message, resultsExpiredAt };
  }

  async #enqueue(runId: string): Promise<void> {
    try {
      await this.#deps.queue.enqueue({ kind: RUN_JOB, id: runId });
    } catch (error) {
      this.#deps.onEnqueueError?.(runId, error);
    }
  }
}

/** Runs whose list may have finished long ago, and so expired. */
const ENDED_RUN_STATES: ReadonlySet<RunState> = new Set(['completed', 'failed', 'cancelled']);

function emptyCategories(): RunCategories {
  return { verified: 0, valid: 0, risky: 0, invalid: 0 };
}

/** A list's verified rows by category. */
export function categoriesOf(list: ListRecord): RunCategories {
  const categories = emptyCategories();
  for (const [status, count] of Object.entries(list.counts.byStatus)) {
    categories[categoryOf(status as Status)] += count;
    categories.verified += count;
  }
  return categories;
}
