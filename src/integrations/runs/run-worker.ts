/**
 * The worker side of runs, one phase after another, each taken up again from the
 * store after a crash:
 * - reading: the audience's members, 1,000 a page, become a list (the new list's id is stored
 *   before its first row, so a half-read list left by a crash is found and removed, and a list
 *   whose upload finished is never read twice);
 * - verifying: the list job does the work (quota, fairness, re-checks, kill -9 resume); the run
 *   polls its list and ends with it, or pauses while it is paused;
 * - writing: results go back in platform write jobs of `writeChunk` members, each job's id stored
 *   with the row it reached in one update, then their outcomes are counted. A crash between a job's
 *   submission and that update sends the same members' writes again: writing a result twice
 *   leaves the same state, and the outcome of the lost job is never counted, so nothing is
 *   counted twice.
 */
import type { FeedbackService } from '../../feedback/feedback-service.ts';
import type { JobOutcome } from '../../jobs/ports.ts';
import type { ListService } from '../../lists/list-service.ts';
import type { ListRecord, ListStore } from '../../lists/ports.ts';
import { IntegrationDisconnected, type IntegrationService } from '../integration-service.ts';
import {
  type Integration,
  type Member,
  type MemberResult,
  ProviderError,
  type ProviderSession,
} from '../ports.ts';
import { importCleanedMembers } from './cleaned-members.ts';
import type { IntegrationRun, RunPatch, RunStore, StoredRunState } from './ports.ts';
import { categoriesOf } from './run-service.ts';

export interface RunWorkerDeps {
  runs: RunStore;
  integrations: Pick<IntegrationService, 'get' | 'withSession' | 'labelOf'>;
  lists: Pick<ListService, 'create' | 'cancel'>;
  listStore: Pick<ListStore, 'getList' | 'deleteList' | 'resultRows'>;
  /** The rows another list of the account may hold, and its plan's cap (throws ListLimitError when none). */
  listRoom: (accountId: string) => Promise<{ rows: number; maxStoredRows: number }>;
  /** The key a run's list is charged to: the account's own (dashboard) key. */
  chargeKeyId: (accountId: string) => Promise<string>;
  now?: () => Date;
  /** How often a run looks at its list, and at its write jobs, ms. */
  pollMs?: number;
  /** Members per write job (Mailchimp: one batch; two operations a member). */
  writeChunk?: number;
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
  /** Records the audience's cleaned members as the account's hard bounces; none read when absent. */
  feedback?: Pick<FeedbackService, 'importHardBounces'>;
}

/** The header of a run's list: its results download names each row's member. */
export const RUN_LIST_HEADER = ['email', 'member_id'];

const PAGE = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The run ended, or was cancelled, while a phase was under way. */
class RunStopped extends Error {}

export class RunWorker {
  readonly #deps: RunWorkerDeps;
  readonly #now: () => Date;
  readonly #pollMs: number;
  readonly #writeChunk: number;

  constructor(deps: RunWorkerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#pollMs = deps.pollMs ?? 5_000;
    this.#writeChunk = deps.writeChunk ?? 2_500;
  }

  /** The job handler: works on the run until it ends or waits. */
  readonly handle = async (runId: string): Promise<JobOutcome> => {
    for (;;) {
      const run = await this.#deps.runs.getRun(runId);
      if (run === null) return;
      try {
        const outcome = await this.#step(run);
        if (outcome !== 'next') return outcome;
      } catch (error) {
        if (error instanceof RunStopped) return;
        if (error instanceof IntegrationDisconnected) {
          await this.#fail(run, error.message);
          return;
        }
        if (error instanceof ProviderError) {
          await this.#fail(
            run,
            `The email platform did not answer as expected (${error.message}); start the run again later.`,
          );
          return;
        }
        throw error;
      }
    }
  };

  async #step(run: IntegrationRun): Promise<JobOutcome | 'next'> {
    switch (run.state) {
      case 'queued':
        await this.#move(run, ['queued'], 'reading', { startedAt: this.#now().toISOString() });
        return 'next';
      case 'reading':
        await this.#read(run);
        return 'next';
      case 'verifying':
        return this.#verifying(run);
      case 'writing':
        return this.#write(run);
      default:
        return undefined;
    }
  }

  async #read(run: IntegrationRun): Promise<void> {
    if (run.listId !== null) {
      const list = await this.#deps.listStore.getList(run.listId);
      if (list !== null) {
        // The upload finished before a crash: its rows are whole, read nothing again.
        await this.#toVerifying(run, list);
        return;
      }
      await this.#deps.listStore.deleteList(run.listId);
    }
    const integration = await this.#integration(run);
    const previous =
      run.scope === 'changed'
        ? await this.#deps.runs.lastCompletedRun(run.integrationId, run.audienceId)
        : null;
    const readAt = this.#now().toISOString();
    // Platforms keep change times in whole seconds: from the start of the second, or a member
    // changed in the same second as the previous read would be missed by both runs.
    const changedSince = previous?.readAt ? `${previous.readAt.slice(0, 19)}Z` : null;
    await this.#move(run, ['reading'], 'reading', { listId: null, readAt, changedSince });
    const { feedback } = this.#deps;
    if (feedback !== undefined) {
      // Before the list is made: its members verify as bounced when the platform cleaned them.
      const cleaned = await this.#deps.integrations.withSession(integration, (session) =>
        importCleanedMembers(session, feedback, run.accountId, run.audienceId, changedSince),
      );
      // A full account still runs: its cleaned members are simply not all known as bounced.
      if (cleaned.full || cleaned.recorded > 0)
        this.#deps.log(cleaned.full ? 'warn' : 'info', 'run: cleaned members recorded as hard bounces', {
          runId: run.id,
          ...cleaned,
        });
    }
    const room = await this.#deps.listRoom(run.accountId);
    const apiKeyId = await this.#deps.chargeKeyId(run.accountId);
    const keep = memberFilter(run, previous, this.#now());
    const list = await this.#deps.integrations.withSession(integration, (session) =>
      this.#deps.lists.create(
        { accountId: run.accountId, apiKeyId, source: 'csv', header: RUN_LIST_HEADER },
        this.#members(run, session, changedSince, keep),
        () => ({
          name: `${this.#deps.integrations.labelOf(integration.provider)}: ${run.audienceName}`,
          webhookUrl: null,
        }),
        room,
        (listId) => this.#move(run, ['reading'], 'reading', { listId }),
      ),
    );
    await this.#toVerifying(run, list);
  }

  async *#members(
    run: IntegrationRun,
    session: ProviderSession,
    changedSince: string | null,
    keep: (member: Member) => boolean,
  ): AsyncGenerator<{ email: string; fields: string[] }> {
    let read = 0;
    for (const status of run.statuses) {
      const fetchPage = (offset: number) => {
        const page = session.members(run.audienceId, {
          statuses: [status],
          ...(changedSince !== null && { changedSince }),
          offset,
          count: PAGE,
        });
        // Awaited below; until then (or if reading stops first) its failure must not go unhandled.
        page.catch(() => {});
        return page;
      };
      let next = fetchPage(0);
      for (let offset = 0; ; offset += PAGE) {
        const page = await next;
        const more = page.members.length === PAGE && offset + PAGE < page.total;
        // Between pages: the count so far for the owner to see, and a cancelled run stops reading
        // (the half list is removed by `create`).
        await this.#move(run, ['reading'], 'reading', { members: read });
        // The next page is on its way while this one is stored.
        if (more) next = fetchPage(offset + PAGE);
        for (const member of page.members) {
          if (!keep(member)) continue;
          read += 1;
          yield { email: member.email, fields: [member.email, member.id] };
        }
        if (!more) break;
      }
    }
  }

  async #toVerifying(run: IntegrationRun, list: ListRecord): Promise<void> {
    const moved = await this.#deps.runs.updateRun(
      run.id,
      ['reading'],
      'verifying',
      this.#now().toISOString(),
      {
        listId: list.id,
        members: list.counts.total,
      },
    );
    // Cancelled while its list was being made: the list must not run on.
    if (!moved) await this.#deps.lists.cancel(run.accountId, list.id);
  }

  async #verifying(run: IntegrationRun): Promise<JobOutcome | 'next'> {
    const list = run.listId === null ? null : await this.#deps.listStore.getList(run.listId);
    if (list === null) {
      await this.#fail(run, 'Its list was deleted before it was verified.');
      return undefined;
    }
    switch (list.state) {
      case 'completed': {
        const categories = categoriesOf(list);
        if (run.writeBack === null) {
          await this.#end(run, ['verifying'], 'completed', { categories });
          return undefined;
        }
        await this.#move(run, ['verifying'], 'writing', { categories });
        return 'next';
      }
      case 'cancelled':
        await this.#end(run, ['verifying'], 'cancelled', { message: 'Its list was cancelled.' });
        return undefined;
      case 'failed':
        await this.#fail(run, list.message ?? 'Its list failed.');
        return undefined;
      case 'paused':
        // Its quota ran out or its owner paused it: the list sweep resumes it, the run follows.
        return { runAgainInMs: this.#pollMs * 6 };
      default:
        return { runAgainInMs: this.#pollMs };
    }
  }

  async #write(run: IntegrationRun): Promise<JobOutcome | 'next'> {
    const writeBack = run.writeBack!;
    const integration = await this.#integration(run);
    const list = run.listId === null ? null : await this.#deps.listStore.getList(run.listId);
    if (list === null) {
      await this.#fail(run, 'Its list was deleted before its results were written back.');
      return undefined;
    }
    const checkedOn = (list.finishedAt ?? this.#now().toISOString()).slice(0, 10);
    return this.#deps.integrations.withSession(integration, async (session) => {
      let { writeCursor, pendingJobs } = run;
      if (writeCursor === 0) await session.prepareWriteBack(run.audienceId, writeBack);
      for (;;) {
        const rows = await this.#deps.listStore.resultRows(list.id, writeCursor, this.#writeChunk);
        if (rows.length === 0) break;
        const results: MemberResult[] = [];
        for (const row of rows) {
          const memberId = row.fields?.[1];
          if (row.result === null || memberId === undefined) continue;
          results.push({ memberId, status: row.result.status, score: row.result.score, checkedOn });
        }
        if ((await this.#deps.runs.getRun(run.id))?.state !== 'writing') throw new RunStopped();
        if (results.length > 0)
          pendingJobs = [...pendingJobs, await session.submitWrites(run.audienceId, results, writeBack)];
        writeCursor = rows.at(-1)!.rowNumber;
        await this.#move(run, ['writing'], 'writing', { writeCursor, pendingJobs });
      }
      let { written, writeErrors } = run;
      let firstError: string | null = null;
      for (const jobId of pendingJobs) {
        const outcome = await session.writeOutcome(jobId);
        if (outcome === null) continue;
        written += outcome.written;
        writeErrors += outcome.errors.length;
        firstError ??= outcome.errors[0]?.message ?? null;
        pendingJobs = pendingJobs.filter((each) => each !== jobId);
        await this.#move(run, ['writing'], 'writing', { written, writeErrors, pendingJobs });
      }
      if (firstError !== null)
        this.#deps.log('warn', 'run: members not written', { runId: run.id, firstError });
      if (pendingJobs.length > 0) return { runAgainInMs: this.#pollMs };
      await this.#end(run, ['writing'], 'completed', {
        message:
          writeErrors === 0
            ? null
            : `${writeErrors} member${writeErrors === 1 ? '' : 's'} could not be written back${firstError === null ? '' : ` (${firstError})`}.`,
      });
      return undefined;
    });
  }

  async #integration(run: IntegrationRun): Promise<Integration> {
    const integration = await this.#deps.integrations.get(run.accountId, run.integrationId);
    if (integration === null) throw new RunStopped();
    return integration;
  }

  /** Changes the run in one of `from`; stops the phase when it is no longer there (cancelled). */
  async #move(
    run: IntegrationRun,
    from: readonly StoredRunState[],
    to: StoredRunState,
    patch: RunPatch,
  ): Promise<void> {
    if (!(await this.#deps.runs.updateRun(run.id, from, to, this.#now().toISOString(), patch)))
      throw new RunStopped();
  }

  async #end(
    run: IntegrationRun,
    from: readonly StoredRunState[],
    to: StoredRunState,
    patch: RunPatch,
  ): Promise<void> {
    await this.#deps.runs.updateRun(run.id, from, to, this.#now().toISOString(), {
      ...patch,
      finishedAt: this.#now().toISOString(),
    });
  }

  async #fail(run: IntegrationRun, message: string): Promise<void> {
    this.#deps.log('warn', 'run failed', { runId: run.id, message });
    await this.#end(run, ['queued', 'reading', 'verifying', 'writing'], 'failed', { message });
  }
}

/**
 * Which members a run verifies. `stale`: MV_CHECKED missing or older than `staleDays`. `changed`:
 * members changed since the previous completed run began reading, leaving out those whose only
 * change since is that run's own write-back (checked by it, and unchanged after it ended).
 */
export function memberFilter(
  run: Pick<IntegrationRun, 'scope' | 'staleDays'>,
  previous: Pick<IntegrationRun, 'readAt' | 'finishedAt'> | null,
  now: Date,
): (member: Member) => boolean {
  if (run.scope === 'stale') {
    const cutoff = new Date(now.getTime() - run.staleDays * DAY_MS).toISOString().slice(0, 10);
    return (member) => member.checkedOn === null || member.checkedOn < cutoff;
  }
  if (run.scope === 'changed' && previous?.readAt && previous.finishedAt) {
    const checkedDay = previous.readAt.slice(0, 10);
    const ended = Date.parse(previous.finishedAt);
    return (member) =>
      !(
        member.checkedOn !== null &&
        member.checkedOn >= checkedDay &&
        Date.parse(member.lastChanged) <= ended
      );
  }
  return () => true;
}
