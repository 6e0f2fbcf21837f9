/**
 * Schedules of integration runs: create, list, show, change (pause, resume) and
 * remove the schedules of an account's integration. With a key or a session; another account's
 * integration or schedule is a 404. The runs themselves are started by the worker's task.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Schedule } from '../../../../integrations/schedules/ports.ts';
import type {
  ScheduleInvalid,
  ScheduleService,
} from '../../../../integrations/schedules/schedule-service.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import { integrationIdParams } from '../../../schemas/integrations.ts';
import { authedErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { runSettingsOf, writeBackView } from '../../../schemas/runs.ts';
import {
  type ChangeScheduleBody,
  type CreateScheduleBody,
  changeScheduleBodySchema,
  createScheduleBodySchema,
  scheduleParams,
} from '../../../schemas/schedules.ts';
import { integrationNotFound, providerFailure } from './failures.ts';

export interface ScheduleRoutesDeps {
  schedules: ScheduleService;
}

const errors = authedErrorResponses;
const tags = ['integrations'];

type ScheduleRoute = { Params: { id: string; scheduleId: string } };

export const scheduleRoutes: FastifyPluginAsync<ScheduleRoutesDeps> = async (app, { schedules }) => {
  app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Params: { id: string }; Body: CreateScheduleBody }>(
      '/integrations/:id/schedules',
      {
        schema: {
          tags,
          summary: 'Schedule runs of an audience with a cron expression in a time zone',
          params: integrationIdParams,
          body: createScheduleBodySchema,
          response: {
            201: okResponse('Schedule', 'Scheduled.'),
            ...errors({
              400: ['bad_request'],
              404: ['not_found'],
              409: ['conflict', 'integration_disconnected'],
              422: ['validation_failed'],
              502: ['provider_unavailable'],
            }),
          },
        },
      },
      async (request, reply) => {
        const { audience_id: audienceId, cron, timezone, ...settings } = request.body;
        let outcome: Awaited<ReturnType<ScheduleService['create']>>;
        try {
          outcome = await schedules.create(
            callerOf(request).accountId,
            request.params.id,
            { audienceId, cron, timezone: timezone ?? 'UTC', ...runSettingsOf(settings) },
            await request.initiator(),
          );
        } catch (error) {
          throw providerFailure(error);
        }
        if (outcome.kind === 'not_found') throw integrationNotFound();
        if (outcome.kind === 'invalid') throw invalid(outcome);
        if (outcome.kind === 'full') {
          throw new ApiError('conflict', {
            message: `The integration has ${outcome.max} schedules, the most it may have: remove one first`,
          });
        }
        reply.code(201);
        return scheduleView(outcome.schedule);
      },
    );

    writes.patch<ScheduleRoute & { Body: ChangeScheduleBody }>(
      '/integrations/:id/schedules/:scheduleId',
      {
        schema: {
          tags,
          summary: 'Change a schedule, or pause and resume it; its next slot is counted again',
          params: scheduleParams,
          body: changeScheduleBodySchema,
          response: {
            200: okResponse('Schedule', 'Changed.'),
            ...errors({ 400: ['bad_request'], 404: ['not_found'], 422: ['validation_failed'] }),
          },
        },
      },
      async (request) => {
        const { body } = request;
        const outcome = await schedules.update(
          callerOf(request).accountId,
          request.params.id,
          request.params.scheduleId,
          {
            ...(body.cron !== undefined && { cron: body.cron }),
            ...(body.timezone !== undefined && { timezone: body.timezone }),
            ...(body.scope !== undefined && { scope: body.scope }),
            ...(body.stale_days !== undefined && { staleDays: body.stale_days }),
            ...(body.statuses !== undefined && { statuses: body.statuses }),
            ...(body.write_back !== undefined && {
              writeBack: runSettingsOf({ write_back: body.write_back }).writeBack,
            }),
            ...(body.paused !== undefined && { paused: body.paused }),
          },
          await request.initiator(),
        );
        if (outcome.kind === 'not_found') throw scheduleNotFound();
        if (outcome.kind === 'invalid') throw invalid(outcome);
        return scheduleView(outcome.schedule);
      },
    );
  });

  app.get<{ Params: { id: string } }>(
    '/integrations/:id/schedules',
    {
      schema: {
        tags,
        summary: "The integration's schedules, oldest first",
        params: integrationIdParams,
        response: { 200: okResponse('ScheduleList', 'The schedules.'), ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request) => {
      const found = await schedules.list(callerOf(request).accountId, request.params.id);
      if (found === null) throw integrationNotFound();
      return { schedules: found.map(scheduleView) };
    },
  );

  app.get<ScheduleRoute>(
    '/integrations/:id/schedules/:scheduleId',
    {
      schema: {
        tags,
        summary: 'One schedule, with its next slot and what its last firing did',
        params: scheduleParams,
        response: { 200: okResponse('Schedule', 'The schedule.'), ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request) => {
      const schedule = await schedules.get(
        callerOf(request).accountId,
        request.params.id,
        request.params.scheduleId,
      );
      if (schedule === null) throw scheduleNotFound();
      return scheduleView(schedule);
    },
  );

  app.delete<ScheduleRoute>(
    '/integrations/:id/schedules/:scheduleId',
    {
      schema: {
        tags,
        summary: 'Remove a schedule (runs it started go on)',
        params: scheduleParams,
        response: { 204: { description: 'Removed.', type: 'null' }, ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request, reply) => {
      const removed = await schedules.remove(
        callerOf(request).accountId,
        request.params.id,
        request.params.scheduleId,
        await request.initiator(),
      );
      if (!removed) throw scheduleNotFound();
      reply.code(204);
    },
  );
};

/** A schedule as the API shows it. */
export function scheduleView(schedule: Schedule) {
  return {
    id: schedule.id,
    integration_id: schedule.integrationId,
    audience_id: schedule.audienceId,
    cron: schedule.cron,
    timezone: schedule.timezone,
    scope: schedule.scope,
    stale_days: schedule.staleDays,
    statuses: schedule.statuses,
    write_back: writeBackView(schedule.writeBack),
    paused: schedule.paused,
    next_run_at: schedule.nextRunAt,
    last_run_at: schedule.lastRunAt,
    last_run_id: schedule.lastRunId,
    last_error: schedule.lastError,
    created_at: schedule.createdAt,
  };
}

function invalid(outcome: ScheduleInvalid): ApiError {
  return validationFailed([{ field: outcome.field, message: outcome.message }]);
}

function scheduleNotFound(): ApiError {
  return new ApiError('not_found', { message: 'No such schedule' });
}
