/**
 * What the API does with schedules: create one for an audience of a connected
 * integration (the expression and time zone checked, the audience checked with the platform), show,
 * change, pause and remove them. Each keeps its next slot in the store: recomputed when its
 * expression, time zone or pause change, null while paused. Starting runs is the task's
 * (schedule-task.ts).
 */
import { randomUUID } from 'node:crypto';
import { type AuditTrail, changedFields, recordChange } from '../../audit/audit-trail.ts';
import type { Initiator } from '../../audit/ports.ts';
import type { IntegrationService } from '../integration-service.ts';
import type { RunRequest } from '../runs/ports.ts';
import { checkCron, nextSlot } from './cron.ts';
import type { Schedule, SchedulePatch, ScheduleStore } from './ports.ts';

/** Schedules one integration may have by default: a few per audience is plenty. */
export const MAX_SCHEDULES_PER_INTEGRATION = 20;

export interface ScheduleServiceDeps {
  integrations: Pick<IntegrationService, 'get' | 'withSession' | 'labelOf'>;
  store: ScheduleStore;
  maxPerIntegration?: number;
  /** Records the schedules someone (`by`) creates, changes and deletes. */
  audit?: AuditTrail;
  now?: () => Date;
}

/** A new schedule: when (an expression in a time zone) and what each run does. */
export interface ScheduleRequest extends RunRequest {
  cron: string;
  timezone: string;
}

/** A change: any of the run's choices but its audience, when, and whether it is paused. */
export type ScheduleChange = Partial<Omit<ScheduleRequest, 'audienceId'> & { paused: boolean }>;

export type ScheduleInvalid = {
  kind: 'invalid';
  field: 'cron' | 'timezone' | 'audience_id';
  message: string;
};

export type CreateOutcome =
  | { kind: 'ok'; schedule: Schedule }
  | { kind: 'not_found' }
  | { kind: 'full'; max: number }
  | ScheduleInvalid;

export type UpdateOutcome = { kind: 'ok'; schedule: Schedule } | { kind: 'not_found' } | ScheduleInvalid;

export class ScheduleService {
  readonly #deps: ScheduleServiceDeps;
  readonly #max: number;

  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
    this.#max = deps.maxPerIntegration ?? MAX_SCHEDULES_PER_INTEGRATION;
  }

  /**
   * Schedules runs of an audience of the account's integration.
   * @throws IntegrationDisconnected, ProviderError (the audience is checked with the platform).
   */
  async create(
    accountId: string,
    integrationId: string,
    request: ScheduleRequest,
    by?: Initiator,
  ): Promise<CreateOutcome> {
    const integration = await this.#deps.integrations.get(accountId, integrationId);
    if (integration === null) return { kind: 'not_found' };
    const when = checkCron(request.cron, request.timezone);
    if (when.kind === 'invalid') return when;
    const audiences = await this.#deps.integrations.withSession(integration, (session) =>
      session.audiences(),
    );
    if (!audiences.some((audience) => audience.id === request.audienceId)) {
      const platform = this.#deps.integrations.labelOf(integration.provider);
      return {
        kind: 'invalid',
        field: 'audience_id',
        message: `No such audience in this ${platform} account`,
      };
    }
    const now = this.#now();
    const schedule: Schedule = {
      id: `sch_${randomUUID().replaceAll('-', '')}`,
      accountId,
      integrationId,
      audienceId: request.audienceId,
      cron: when.cron,
      timezone: when.timezone,
      scope: request.scope,
      staleDays: request.staleDays,
      statuses: [...request.statuses],
      writeBack: request.writeBack,
      paused: false,
      nextRunAt: nextSlot(when.cron, when.timezone, now),
      lastRunAt: null,
      lastRunId: null,
      lastError: null,
      createdAt: now.toISOString(),
    };
    const created = await this.#deps.store.createSchedule(schedule, this.#max);
    if (created === 'not_found') return { kind: 'not_found' };
    if (created === 'full') return { kind: 'full', max: this.#max };
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'schedule.created',
      targetId: schedule.id,
      details: { integration_id: integrationId, audience_id: schedule.audienceId, ...settingsOf(schedule) },
    });
    return { kind: 'ok', schedule };
  }

  /** The integration's schedules, oldest first; null when there is no such integration. */
  async list(accountId: string, integrationId: string): Promise<Schedule[] | null> {
    if ((await this.#deps.integrations.get(accountId, integrationId)) === null) return null;
    return this.#deps.store.listSchedules(accountId, integrationId);
  }

  get(accountId: string, integrationId: string, id: string): Promise<Schedule | null> {
    return this.#deps.store.findSchedule(accountId, integrationId, id);
  }

  /** Changes a schedule; its next slot is recomputed from now when its timing or pause changes. */
  async update(
    accountId: string,
    integrationId: string,
    id: string,
    change: ScheduleChange,
    by?: Initiator,
  ): Promise<UpdateOutcome> {
    const current = await this.#deps.store.findSchedule(accountId, integrationId, id);
    if (current === null) return { kind: 'not_found' };
    let when = { cron: current.cron, timezone: current.timezone };
    if (change.cron !== undefined || change.timezone !== undefined) {
      const checked = checkCron(change.cron ?? current.cron, change.timezone ?? current.timezone);
      if (checked.kind === 'invalid') return checked;
      when = { cron: checked.cron, timezone: checked.timezone };
    }
    const retimed = change.cron !== undefined || change.timezone !== undefined || change.paused !== undefined;
    const paused = change.paused ?? current.paused;
    const patch: SchedulePatch = {
      ...(change.scope !== undefined && { scope: change.scope }),
      ...(change.staleDays !== undefined && { staleDays: change.staleDays }),
      ...(change.statuses !== undefined && { statuses: [...change.statuses] }),
      ...(change.writeBack !== undefined && { writeBack: change.writeBack }),
      ...(retimed && {
        ...when,
        paused,
        nextRunAt: paused ? null : nextSlot(when.cron, when.timezone, this.#now()),
      }),
    };
    const schedule = await this.#deps.store.updateSchedule(accountId, integrationId, id, patch);
    if (schedule === null) return { kind: 'not_found' };
    const changed = changedFields(settingsOf(current), settingsOf(schedule));
    if (changed !== null) {
      await recordChange(this.#deps.audit, accountId, by, {
        action: 'schedule.updated',
        targetId: id,
        details: { integration_id: integrationId, ...changed },
      });
    }
    return { kind: 'ok', schedule };
  }

  /** False when there is no such schedule. */
  async remove(accountId: string, integrationId: string, id: string, by?: Initiator): Promise<boolean> {
    const schedule = by === undefined ? null : await this.get(accountId, integrationId, id);
    if (!(await this.#deps.store.deleteSchedule(accountId, integrationId, id))) return false;
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'schedule.deleted',
      targetId: id,
      details:
        schedule === null
          ? { integration_id: integrationId }
          : { integration_id: integrationId, audience_id: schedule.audienceId, ...settingsOf(schedule) },
    });
    return true;
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }
}

/** A schedule's settings as the API names them: what the audit log shows of it, before and after. */
function settingsOf(schedule: Schedule) {
  return {
    cron: schedule.cron,
    timezone: schedule.timezone,
    scope: schedule.scope,
    stale_days: schedule.staleDays,
    statuses: [...schedule.statuses],
    write_back:
      schedule.writeBack === null
        ? null
        : {
            fields: schedule.writeBack.fields,
            tags: schedule.writeBack.tags,
            segments: schedule.writeBack.segments,
            unsubscribe_invalid: schedule.writeBack.unsubscribeInvalid,
          },
    paused: schedule.paused,
  };
}
