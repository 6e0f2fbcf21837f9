/**
 * Runs: start one on an audience (202: the work is the worker's), read runs with
 * their live progress, cancel one. Another account's integration or run is a 404; a second run of
 * an audience while one is going is a 409.
 */
import type { FastifyPluginAsync } from 'fastify';
import { type RunService, type RunView, UnknownAudience } from '../../../../integrations/runs/run-service.ts';
import { ListLimitError } from '../../../../lists/list-limits.ts';
import { decodeCursor, encodeCursor, pageLimit, pageQuerySchema } from '../../../cursor.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import { integrationIdParams } from '../../../schemas/integrations.ts';
import { authedErrorResponses, okResponse } from '../../../schemas/responses.ts';
import {
  type RunBody,
  runBodySchema,
  runParams,
  runSettingsOf,
  writeBackView,
} from '../../../schemas/runs.ts';
import { integrationNotFound, providerFailure } from './failures.ts';

export interface RunRoutesDeps {
  runs: RunService;
}

const errors = authedErrorResponses;
const tags = ['integrations'];

export const runRoutes: FastifyPluginAsync<RunRoutesDeps> = async (app, { runs }) => {
  app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Params: { id: string }; Body: RunBody }>(
      '/integrations/:id/runs',
      {
        schema: {
          tags,
          summary:
            'Validate an audience: read its members, verify them as a list job, write the results back',
          params: integrationIdParams,
          body: runBodySchema,
          response: {
            202: okResponse('Run', 'Started.'),
            ...errors({
              400: ['bad_request'],
              404: ['not_found'],
              409: ['conflict', 'integration_disconnected'],
              413: ['storage_limit_reached'],
              422: ['validation_failed'],
              429: ['too_many_lists'],
              502: ['provider_unavailable'],
            }),
          },
        },
      },
      async (request, reply) => {
        const { accountId } = callerOf(request);
        const { audience_id: audienceId, ...settings } = request.body;
        let outcome: Awaited<ReturnType<RunService['start']>>;
        try {
          outcome = await runs.start(
            accountId,
            request.params.id,
            { audienceId, ...runSettingsOf(settings) },
            { kind: 'manual' },
            await request.initiator(),
          );
        } catch (error) {
          if (error instanceof UnknownAudience)
            throw validationFailed([
              { field: 'audience_id', message: 'No such audience in this Mailchimp account' },
            ]);
          if (error instanceof ListLimitError) {
            const code = error.limit === 'stored_rows' ? 'storage_limit_reached' : 'too_many_lists';
            throw new ApiError(code, { message: error.message });
          }
          throw providerFailure(error);
        }
        if (outcome.kind === 'not_found') throw integrationNotFound();
        if (outcome.kind === 'busy') {
          throw new ApiError('conflict', {
            message: 'This audience has a run going: wait for it to end, or cancel it',
          });
        }
        reply.code(202);
        return runView(await runs.view(outcome.run));
      },
    );
  });

  app.get<{ Params: { id: string }; Querystring: { limit?: string; cursor?: string } }>(
    '/integrations/:id/runs',
    {
      schema: {
        tags,
        summary: "The integration's runs, newest first",
        params: integrationIdParams,
        querystring: pageQuerySchema('Runs'),
        response: {
          200: okResponse('RunList', 'A page of runs.'),
          ...errors({ 404: ['not_found'], 422: ['validation_failed'] }),
        },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      const limit = pageLimit(request.query.limit);
      const before = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      if (!(await runs.integrationExists(accountId, request.params.id))) throw integrationNotFound();
      const page = await runs.page(accountId, request.params.id, limit + 1, before);
      const shown = page.slice(0, limit);
      const last = shown.at(-1)?.run;
      return {
        runs: shown.map(runView),
        next_cursor: page.length > limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null,
      };
    },
  );

  app.get<{ Params: { id: string; runId: string } }>(
    '/integrations/:id/runs/:runId',
    {
      schema: {
        tags,
        summary: 'One run, with its live progress',
        params: runParams,
        response: { 200: okResponse('Run', 'The run.'), ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request) => {
      const view = await runs.get(callerOf(request).accountId, request.params.id, request.params.runId);
      if (view === null) throw runNotFound();
      return runView(view);
    },
  );

  app.post<{ Params: { id: string; runId: string } }>(
    '/integrations/:id/runs/:runId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a run: its list stops, nothing more is written; its results so far stay',
        params: runParams,
        response: {
          200: okResponse('Run', 'Cancelled.'),
          ...errors({ 404: ['not_found'], 409: ['conflict'] }),
        },
      },
    },
    async (request) => {
      const outcome = await runs.cancel(
        callerOf(request).accountId,
        request.params.id,
        request.params.runId,
        await request.initiator(),
      );
      if (outcome.kind === 'not_found') throw runNotFound();
      if (outcome.kind === 'conflict')
        throw new ApiError('conflict', { message: `The run is ${outcome.state}: it cannot be cancelled` });
      return runView(outcome.view);
    },
  );
};

function runNotFound(): ApiError {
  return new ApiError('not_found', { message: 'No such run' });
}

/** A run as the API shows it. */
export function runView({ run, state, categories, message, resultsExpiredAt }: RunView) {
  return {
    id: run.id,
    integration_id: run.integrationId,
    audience_id: run.audienceId,
    audience_name: run.audienceName,
    state,
    trigger: run.trigger,
    schedule_id: run.scheduleId,
    statuses: run.statuses,
    scope: run.scope,
    stale_days: run.staleDays,
    write_back: writeBackView(run.writeBack),
    list_id: run.listId,
    results_expired: resultsExpiredAt !== null,
    results_expired_at: resultsExpiredAt,
    counts: {
      members: run.members,
      verified: categories.verified,
      written: run.written,
      write_errors: run.writeErrors,
      valid: categories.valid,
      risky: categories.risky,
      invalid: categories.invalid,
    },
    message,
    created_at: run.createdAt,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
  };
}
