/**
 * Runs of integrations on Kysely, SQLite and PostgreSQL alike. Reads an owner makes are scoped to
 * the account; the worker reads a run by id. A run's request (statuses, scope, write-back) is one
 * JSON column: it never changes and is never queried into.
 */
import type { Kysely, Selectable } from 'kysely';
import {
  ACTIVE_RUN_STATES,
  type IntegrationRun,
  type RunCategories,
  type RunPatch,
  type RunRequest,
  type RunStore,
  type StoredRunState,
} from '../../integrations/runs/ports.ts';
import type { DatabaseSchema, IntegrationRunsTable } from './schema.ts';

type Row = Selectable<IntegrationRunsTable>;

export class KyselyRunStore implements RunStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async createRun(run: IntegrationRun): Promise<IntegrationRun | null> {
    const request: RunRequest = {
      audienceId: run.audienceId,
      statuses: run.statuses,
      scope: run.scope,
      staleDays: run.staleDays,
      writeBack: run.writeBack,
    };
    // The unique `active_audience` refuses a second run of an audience while one is going.
    const inserted = await this.#db
      .insertInto('integration_runs')
      .values({
        id: run.id,
        account_id: run.accountId,
        integration_id: run.integrationId,
        audience_id: run.audienceId,
        audience_name: run.audienceName,
        active_audience: activeAudience(run),
        trigger: run.trigger,
        schedule_id: run.scheduleId,
        state: run.state,
        request: JSON.stringify(request),
        created_at: run.createdAt,
        updated_at: run.updatedAt,
      })
      .onConflict((conflict) => conflict.column('active_audience').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1 ? run : null;
  }

  async findRun(accountId: string, integrationId: string, id: string): Promise<IntegrationRun | null> {
    const row = await this.#db
      .selectFrom('integration_runs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? null : toRun(row);
  }

  async getRun(id: string): Promise<IntegrationRun | null> {
    const row = await this.#db
      .selectFrom('integration_runs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? null : toRun(row);
  }

  async listRuns(
    accountId: string,
    integrationId: string,
    limit: number,
    before?: { createdAt: string; id: string },
  ): Promise<IntegrationRun[]> {
    let query = this.#db
      .selectFrom('integration_runs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId);
    if (before !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toRun);
  }

  async latestRuns(accountId: string, integrationId: string): Promise<IntegrationRun[]> {
    const rows = await this.#db
      .selectFrom('integration_runs as run')
      .selectAll('run')
      .where('run.account_id', '=', accountId)
      .where('run.integration_id', '=', integrationId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('integration_runs as later')
              .select('later.id')
              .whereRef('later.integration_id', '=', 'run.integration_id')
              .whereRef('later.audience_id', '=', 'run.audience_id')
              .where((eb) =>
                eb.or([
                  eb('later.created_at', '>', eb.ref('run.created_at')),
                  eb.and([
                    eb('later.created_at', '=', eb.ref('run.created_at')),
                    eb('later.id', '>', eb.ref('run.id')),
                  ]),
                ]),
              ),
          ),
        ),
      )
      .execute();
    return rows.map(toRun);
  }

  async lastCompletedRun(integrationId: string, audienceId: string): Promise<IntegrationRun | null> {
    const row = await this.#db
      .selectFrom('integration_runs')
      .selectAll()
      .where('integration_id', '=', integrationId)
      .where('audience_id', '=', audienceId)
      .where('state', '=', 'completed')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? null : toRun(row);
  }

  async updateRun(
    id: string,
    from: readonly StoredRunState[],
    to: StoredRunState,
    now: string,
    patch: RunPatch = {},
  ): Promise<boolean> {
    const ended = !(ACTIVE_RUN_STATES as readonly string[]).includes(to);
    const result = await this.#db
      .updateTable('integration_runs')
      .set({
        state: to,
        updated_at: now,
        ...(ended && { active_audience: null }),
        ...('listId' in patch && { list_id: patch.listId }),
        ...('changedSince' in patch && { changed_since: patch.changedSince }),
        ...('readAt' in patch && { read_at: patch.readAt }),
        ...(patch.members !== undefined && { members: patch.members }),
        ...(patch.written !== undefined && { written: patch.written }),
        ...(patch.writeErrors !== undefined && { write_errors: patch.writeErrors }),
        ...(patch.writeCursor !== undefined && { write_cursor: patch.writeCursor }),
        ...(patch.pendingJobs !== undefined && { pending_jobs: JSON.stringify(patch.pendingJobs) }),
        ...('categories' in patch && {
          categories: patch.categories === null ? null : JSON.stringify(patch.categories),
        }),
        ...('message' in patch && { message: patch.message }),
        ...('startedAt' in patch && { started_at: patch.startedAt }),
        ...('finishedAt' in patch && { finished_at: patch.finishedAt }),
      })
      .where('id', '=', id)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async activeRunIds(): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('integration_runs')
      .select('id')
      .where('state', 'in', [...ACTIVE_RUN_STATES])
      .orderBy('created_at')
      .execute();
    return rows.map((row) => row.id);
  }
}

function activeAudience(run: Pick<IntegrationRun, 'integrationId' | 'audienceId'>): string {
  return `${run.integrationId}:${run.audienceId}`;
}

function toRun(row: Row): IntegrationRun {
  const request = JSON.parse(row.request) as RunRequest;
  return {
    id: row.id,
    accountId: row.account_id,
    integrationId: row.integration_id,
    audienceId: row.audience_id,
    audienceName: row.audience_name,
    statuses: request.statuses,
    scope: request.scope,
    staleDays: request.staleDays,
    writeBack: request.writeBack,
    trigger: row.trigger === 'schedule' ? 'schedule' : 'manual',
    scheduleId: row.schedule_id,
    state: row.state as StoredRunState,
    listId: row.list_id,
    changedSince: row.changed_since,
    readAt: row.read_at,
    members: Number(row.members),
    written: Number(row.written),
    writeErrors: Number(row.write_errors),
    writeCursor: Number(row.write_cursor),
    pendingJobs: JSON.parse(row.pending_jobs) as string[],
    categories: row.categories === null ? null : (JSON.parse(row.categories) as RunCategories),
    message: row.message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
