/**
 * Schedules of integration runs on Kysely, SQLite and PostgreSQL alike. Reads and changes an owner
 * makes are scoped to the account; the task reads due schedules of every account and claims a slot
 * by id with one conditional UPDATE on the slot it read.
 */
import type { Kysely, Selectable } from 'kysely';
import type { MemberStatus, WriteBackOptions } from '../../integrations/ports.ts';
import type { RunScope } from '../../integrations/runs/ports.ts';
import type {
  CreateScheduleOutcome,
  Schedule,
  ScheduleFiring,
  SchedulePatch,
  ScheduleStore,
} from '../../integrations/schedules/ports.ts';
import type { DatabaseSchema, IntegrationSchedulesTable } from './schema.ts';

type Row = Selectable<IntegrationSchedulesTable>;

export class KyselyScheduleStore implements ScheduleStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  createSchedule(schedule: Schedule, max: number): Promise<CreateScheduleOutcome> {
    return this.#db.transaction().execute(async (trx) => {
      // A no-op write to the integration's row: it holds the row (PostgreSQL) or the database
      // (SQLite) until commit, so a concurrent creation counts after this one's insert.
      const held = await trx
        .updateTable('integrations')
        .set((eb) => ({ state: eb.ref('state') }))
        .where('account_id', '=', schedule.accountId)
        .where('id', '=', schedule.integrationId)
        .executeTakeFirst();
      if (Number(held.numUpdatedRows) !== 1) return 'not_found';
      const { count } = await trx
        .selectFrom('integration_schedules')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('integration_id', '=', schedule.integrationId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= max) return 'full';
      await trx.insertInto('integration_schedules').values(toRow(schedule)).execute();
      return 'created';
    });
  }

  async findSchedule(accountId: string, integrationId: string, id: string): Promise<Schedule | null> {
    const row = await this.#db
      .selectFrom('integration_schedules')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? null : toSchedule(row);
  }

  async listSchedules(accountId: string, integrationId: string): Promise<Schedule[]> {
    const rows = await this.#db
      .selectFrom('integration_schedules')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toSchedule);
  }

  async updateSchedule(
    accountId: string,
    integrationId: string,
    id: string,
    patch: SchedulePatch,
  ): Promise<Schedule | null> {
    const set = {
      ...(patch.cron !== undefined && { cron: patch.cron }),
      ...(patch.timezone !== undefined && { timezone: patch.timezone }),
      ...(patch.scope !== undefined && { scope: patch.scope }),
      ...(patch.staleDays !== undefined && { stale_days: patch.staleDays }),
      ...(patch.statuses !== undefined && { statuses: JSON.stringify(patch.statuses) }),
      ...(patch.writeBack !== undefined && { write_back: writeBackText(patch.writeBack) }),
      ...(patch.paused !== undefined && { paused: patch.paused ? 1 : 0 }),
      ...(patch.nextRunAt !== undefined && { next_run_at: patch.nextRunAt }),
    };
    if (Object.keys(set).length > 0) {
      await this.#db
        .updateTable('integration_schedules')
        .set(set)
        .where('account_id', '=', accountId)
        .where('integration_id', '=', integrationId)
        .where('id', '=', id)
        .execute();
    }
    return this.findSchedule(accountId, integrationId, id);
  }

  async deleteSchedule(accountId: string, integrationId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('integration_schedules')
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async dueSchedules(now: string, limit: number): Promise<Schedule[]> {
    const rows = await this.#db
      .selectFrom('integration_schedules')
      .selectAll()
      .where('paused', '=', 0)
      .where('next_run_at', 'is not', null)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toSchedule);
  }

  async claimSlot(id: string, due: string, next: string | null): Promise<boolean> {
    // Of processes claiming one slot at once, PostgreSQL re-checks the WHERE of the later update
    // on the row the first one left (SQLite runs them one after the other): one changes the row.
    const result = await this.#db
      .updateTable('integration_schedules')
      .set({ next_run_at: next })
      .where('id', '=', id)
      .where('paused', '=', 0)
      .where('next_run_at', '=', due)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async recordFiring(id: string, firing: ScheduleFiring): Promise<void> {
    await this.#db
      .updateTable('integration_schedules')
      .set({ last_run_at: firing.at, last_run_id: firing.runId, last_error: firing.error })
      .where('id', '=', id)
      .execute();
  }
}

function writeBackText(writeBack: WriteBackOptions | null): string | null {
  return writeBack === null ? null : JSON.stringify(writeBack);
}

function toRow(schedule: Schedule): Row {
  return {
    id: schedule.id,
    account_id: schedule.accountId,
    integration_id: schedule.integrationId,
    audience_id: schedule.audienceId,
    cron: schedule.cron,
    timezone: schedule.timezone,
    scope: schedule.scope,
    stale_days: schedule.staleDays,
    statuses: JSON.stringify(schedule.statuses),
    write_back: writeBackText(schedule.writeBack),
    paused: schedule.paused ? 1 : 0,
    next_run_at: schedule.nextRunAt,
    last_run_at: schedule.lastRunAt,
    last_run_id: schedule.lastRunId,
    last_error: schedule.lastError,
    created_at: schedule.createdAt,
  };
}

function toSchedule(row: Row): Schedule {
  return {
    id: row.id,
    accountId: row.account_id,
    integrationId: row.integration_id,
    audienceId: row.audience_id,
    cron: row.cron,
    timezone: row.timezone,
    scope: row.scope as RunScope,
    staleDays: Number(row.stale_days),
    statuses: JSON.parse(row.statuses) as MemberStatus[],
    writeBack: row.write_back === null ? null : (JSON.parse(row.write_back) as WriteBackOptions),
    paused: Number(row.paused) === 1,
    nextRunAt: row.next_run_at,
    lastRunAt: row.last_run_at,
    lastRunId: row.last_run_id,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}
