/**
 * GET /api/v1/lists/{id}/rows?offset=&limit=&status=&q=: one page of a list's rows with their
 * results, for people to read (the dashboard's results table): in upload order, narrowed to some
 * statuses and to addresses containing `q`, with how many rows that leaves in all. The search runs
 * in the store, so a page of a million-row list is read, never the list. Downloads stay with
 * `results.ts`, which streams every row.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ListService } from '../../../../lists/list-service.ts';
import { pageLimit } from '../../../cursor.ts';
import { listNotFound, resultsExpired, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { apiErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { type ListIdParams, listIdParams } from './params.ts';
import { parseStatuses } from './results.ts';

export interface ListRowsDeps {
  lists: Pick<ListService, 'get' | 'resultPage'>;
}

interface RowsQuery {
  offset?: string;
  limit?: string;
  status?: string;
  q?: string;
}

/** Rows a page shows unless asked otherwise. */
const DEFAULT_LIMIT = 25;
/** Past the largest list there is (1,000,000 rows): a larger offset is a mistake, not a page. */
const MAX_OFFSET = 10_000_000;

const schema = {
  tags: ['lists'],
  summary: "A page of a list's rows with their results, filtered by status and searched by address",
  description:
    '`limit` rows (1 to 100, default 25) after the first `offset` (default 0) of the rows kept, in upload ' +
    'order. `status` keeps only rows with those final statuses (comma-separated); `q` only rows whose ' +
    'address contains it (letters compared without case; `%` and `_` are plain characters). `total` is ' +
    'how many rows are kept in all.',
  security: [{ bearerAuth: [] }],
  params: listIdParams,
  querystring: {
    type: 'object',
    properties: {
      offset: { type: 'string', pattern: '^[0-9]{1,8}$', description: 'Rows to skip, default 0.' },
      limit: {
        type: 'string',
        pattern: '^[0-9]{1,3}$',
        description: 'Rows per page, 1 to 100 (default 25).',
      },
      status: { type: 'string', maxLength: 500, examples: ['VALID,PROBABLY_VALID'] },
      q: { type: 'string', maxLength: 200, description: 'Text the address must contain.' },
    },
  },
  response: {
    200: okResponse('ListRowPage', 'The page of rows.'),
    ...apiErrorResponses({
      401: ['unauthorized'],
      404: ['not_found'],
      410: ['results_expired'],
      422: ['validation_failed'],
      429: ['rate_limited'],
      500: ['internal_error'],
    }),
  },
};

/** The rows route. */
export const listRowsRoute: FastifyPluginAsync<ListRowsDeps> = async (app, { lists }) => {
  app.get<{ Params: ListIdParams; Querystring: RowsQuery }>(
    '/lists/:id/rows',
    { schema },
    async (request) => {
      const list = await lists.get(callerOf(request).accountId, request.params.id);
      if (list === null) throw listNotFound();
      if ((list.resultsExpiredAt ?? null) !== null) throw resultsExpired();
      const limit = pageLimit(request.query.limit, DEFAULT_LIMIT);
      const offset = Number(request.query.offset ?? '0');
      if (offset > MAX_OFFSET) {
        throw validationFailed([
          { field: 'offset', message: `Must be an integer from 0 to ${MAX_OFFSET.toLocaleString('en-US')}` },
        ]);
      }
      const search = request.query.q?.trim() ?? '';
      const page = await lists.resultPage(list, offset, limit, {
        statuses: parseStatuses(request.query.status),
        search: search === '' ? undefined : search,
      });
      return {
        rows: page.rows.map((row) => ({ row: row.rowNumber, email: row.email, result: row.result })),
        total: page.total,
        offset,
        limit,
      };
    },
  );
};
