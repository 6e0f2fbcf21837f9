/**
 * The owner's actions on a list: POST /lists/{id}/pause, /resume, /cancel, and DELETE /lists/{id}.
 * An action the list's state does not allow is a 409 `conflict` naming the state.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ListActionOutcome, ListService } from '../../../../lists/list-service.ts';
import { listView } from '../../../../lists/list-view.ts';
import { listConflict, listNotFound } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { apiErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { type ListIdParams, listIdParams } from './params.ts';

export interface ListActionDeps {
  lists: Pick<ListService, 'pause' | 'resume' | 'cancel' | 'remove'>;
}

const errors = apiErrorResponses({
  401: ['unauthorized'],
  404: ['not_found'],
  409: ['conflict'],
  429: ['rate_limited'],
  500: ['internal_error'],
});

const ACTIONS = {
  pause: { summary: 'Pause a queued or running list', past: 'paused' },
  resume: { summary: 'Resume a paused list', past: 'resumed' },
  cancel: { summary: 'Cancel a list that has not finished (its results so far stay)', past: 'cancelled' },
} as const;

/** The list action routes. */
export const listActionRoutes: FastifyPluginAsync<ListActionDeps> = async (app, { lists }) => {
  for (const [action, { summary, past }] of Object.entries(ACTIONS) as Array<
    [keyof typeof ACTIONS, (typeof ACTIONS)[keyof typeof ACTIONS]]
  >) {
    app.post<{ Params: ListIdParams }>(
      `/lists/:id/${action}`,
      {
        schema: {
          tags: ['lists'],
          summary,
          security: [{ bearerAuth: [] }],
          params: listIdParams,
          response: { 200: okResponse('List', 'The list after the action.'), ...errors },
        },
      },
      async (request) => {
        const outcome: ListActionOutcome = await lists[action](
          callerOf(request).accountId,
          request.params.id,
        );
        if (outcome.kind === 'not_found') throw listNotFound();
        if (outcome.kind === 'conflict') throw listConflict(past, outcome.state);
        return listView(outcome.list);
      },
    );
  }

  app.delete<{ Params: ListIdParams }>(
    '/lists/:id',
    {
      schema: {
        tags: ['lists'],
        summary: 'Delete a list and all its data (a running list stops)',
        security: [{ bearerAuth: [] }],
        params: listIdParams,
        response: { 204: { description: 'Deleted.', type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      const removed = await lists.remove(
        callerOf(request).accountId,
        request.params.id,
        await request.initiator(),
      );
      if (!removed) throw listNotFound();
      reply.code(204);
    },
  );
};
