/**
 * GET /api/v1/lists/{id}/results?format=csv|json&status=...: one entry per uploaded row, in upload
 * order (a duplicate row repeats its address's result), streamed from the store page by page so a
 * million rows never sit in memory. CSV keeps the uploaded row's columns and appends the result's.
 * Rows not verified yet have empty result cells (CSV) or `"result": null` (JSON). Once the
 * account's retention deleted them, 410 `results_expired`.
 */
import { create as contentDisposition } from 'content-disposition';
import type { FastifyPluginAsync } from 'fastify';
import type { ListService } from '../../../../lists/list-service.ts';
import { resultsCsv, resultsJson } from '../../../../lists/results-format.ts';
import type { Status } from '../../../../verification/report.ts';
import { listNotFound, resultsExpired, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { accountingHeaders, apiErrorResponses } from '../../../schemas/responses.ts';
import { STATUS_NAMES } from '../../../schemas/result.ts';
import { type ListIdParams, listIdParams } from './params.ts';

export interface ListResultsDeps {
  lists: Pick<ListService, 'get' | 'results'>;
}

interface ResultsQuery {
  format?: 'csv' | 'json';
  status?: string;
  raw?: 'true' | 'false';
}

const schema = {
  tags: ['lists'],
  summary: "A list's results, one per uploaded row, in upload order",
  description:
    'CSV (default) keeps the uploaded columns and appends mailvet_status, mailvet_score, ' +
    'mailvet_reason and the other result columns; JSON is an array of `{"row", "email", "result"}`. ' +
    '`status` keeps only rows with those statuses (comma-separated, e.g. `VALID,PROBABLY_VALID`). ' +
    'CSV cells a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage return) are ' +
    "prefixed with ' unless `raw=true`.",
  security: [{ bearerAuth: [] }],
  params: listIdParams,
  querystring: {
    type: 'object',
    properties: {
      format: { type: 'string', enum: ['csv', 'json'] },
      status: { type: 'string', maxLength: 500 },
      raw: { type: 'string', enum: ['true', 'false'] },
    },
  },
  response: {
    200: {
      description: 'The results, streamed.',
      headers: accountingHeaders,
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/json': { schema: { type: 'array', items: { type: 'object' } } },
      },
    },
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

/** The results route. */
export const listResultsRoute: FastifyPluginAsync<ListResultsDeps> = async (app, { lists }) => {
  app.get<{ Params: ListIdParams; Querystring: ResultsQuery }>(
    '/lists/:id/results',
    { schema },
    async (request, reply) => {
      const list = await lists.get(callerOf(request).accountId, request.params.id);
      if (list === null) throw listNotFound();
      if ((list.resultsExpiredAt ?? null) !== null) throw resultsExpired();
      const statuses = parseStatuses(request.query.status);
      const rows = lists.results(list.id, statuses);
      const format = request.query.format ?? 'csv';
      reply.header('content-disposition', contentDisposition(resultsFileName(list, format)));
      if (format === 'json') {
        reply.type('application/json; charset=utf-8');
        return reply.send(resultsJson(rows));
      }
      reply.type('text/csv; charset=utf-8');
      return reply.send(resultsCsv(list.header ?? ['email'], rows, { raw: request.query.raw === 'true' }));
    },
  );
};

/**
 * `customers-results.csv` for a list named `customers.csv`: the name people gave it, without its
 * extension and the characters file systems refuse; the list's id when nothing is left. A non-ASCII
 * name travels in `filename*` (RFC 6266), with an ASCII fallback.
 */
export function resultsFileName(list: { id: string; name: string }, format: 'csv' | 'json'): string {
  const base = list.name
    .replace(/\.(csv|json|txt)$/i, '')
    // Control characters and what Windows, macOS or Linux refuse in a file name.
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-')
    .replace(/^[\s.-]+|[\s.-]+$/g, '')
    .slice(0, 100);
  return `${base === '' ? list.id : base}-results.${format}`;
}

/** `?status=VALID,probably_valid`: the statuses named (each once); undefined when none is. */
export function parseStatuses(value: string | undefined): Status[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const known = new Set<string>(STATUS_NAMES);
  const statuses = value.split(',').map((part) => part.trim().toUpperCase());
  const unknown = statuses.find((status) => !known.has(status));
  if (unknown !== undefined) {
    throw validationFailed([
      {
        field: 'status',
        message: `Unknown status "${unknown.slice(0, 40)}": use ${STATUS_NAMES.join(', ')}`,
      },
    ]);
  }
  return [...new Set(statuses)] as Status[];
}
