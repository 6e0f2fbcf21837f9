/**
 * GET /api/v1/lists (the caller's lists, newest first, paged by cursor) and GET /api/v1/lists/{id}.
 * A list of another account answers 404, like a list that does not exist.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ListService } from '../../../../lists/list-service.ts';
import { listView } from '../../../../lists/list-view.ts';
import { decodeCursor, encodeCursor, pageLimit, pageQuerySchema } from '../../../cursor.ts';
import { listNotFound } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { apiErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { type ListIdParams, listIdParams } from './params.ts';

export interface ListReadDeps {
  lists: Pick<ListService, 'get' | 'page'>;
}

const pageQuery = pageQuerySchema('Lists');

const errors = apiErrorResponses({
  400: ['bad_request'],
  401: ['unauthorized'],
  404: ['not_found'],
  422: ['validation_failed'],
  429: ['rate_limited'],
  500: ['internal_error'],
});

/** The list-reading routes. */
export const listReadRoutes: FastifyPluginAsync<ListReadDeps> = async (app, { lists }) => {
  app.get<{ Querystring: { limit?: string; cursor?: string } }>(
    '/lists',
    {
      schema: {
        tags: ['lists'],
        summary: "The caller's list jobs, newest first",
        security: [{ bearerAuth: [] }],
        querystring: pageQuery,
        response: { 200: okResponse('ListPage', 'A page of lists.'), ...errors },
      },
    },
    async (request) => {
      const limit = pageLimit(request.query.limit);
      const after = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      const page = await lists.page(callerOf(request).accountId, limit + 1, after);
      const shown = page.slice(0, limit);
      const last = shown.at(-1);
      return {
        lists: shown.map(listView),
        next_cursor: page.length > limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null,
      };
    },
  );

  app.get<{ Params: ListIdParams }>(
    '/lists/:id',
    {
      schema: {
        tags: ['lists'],
        summary: 'One list job: state, counts, progress',
        security: [{ bearerAuth: [] }],
        params: listIdParams,
        response: { 200: okResponse('List', 'The list.'), ...errors },
      },
    },
    async (request) => {
      const list = await lists.get(callerOf(request).accountId, request.params.id);
      if (list === null) throw listNotFound();
      return listView(list);
    },
  );
};
