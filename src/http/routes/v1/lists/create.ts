/**
 * POST /api/v1/lists: a list job from `{"name", "emails", "webhook_url"}` (JSON), a raw CSV body
 * (`text/csv`), or a CSV file in the multipart field `file`. The body is read as a stream and
 * stored in batches, so its size never sits in memory. For CSV, `name`, `webhook_url` and `column`
 * come from the query string (or, multipart, from fields sent before `file`). Answers 202: the
 * list is queued; its progress is at `GET /lists/{id}`.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { storageLimits } from '../../../../accounts/plans.ts';
import { ListLimitError } from '../../../../lists/list-limits.ts';
import type { IncomingRow, ListDetails, ListService } from '../../../../lists/list-service.ts';
import { listView } from '../../../../lists/list-view.ts';
import { readCsvUpload } from '../../../../lists/upload/csv-rows.ts';
import { readJsonUpload } from '../../../../lists/upload/json-rows.ts';
import { checkListName, checkWebhookUrl, DEFAULT_LIST_NAME } from '../../../../lists/upload/list-fields.ts';
import { UploadError } from '../../../../lists/upload/upload-error.ts';
import { webhookSecretFor } from '../../../../webhooks/signature.ts';
import { ApiError } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { accountingHeaders, apiErrorResponses } from '../../../schemas/responses.ts';
import { multipartCsv, type UploadTimeouts, uploadBytes, uploadTooLarge } from './upload-body.ts';

export interface ListCreateDeps {
  lists: Pick<ListService, 'create' | 'room' | 'checkWebhookTarget'>;
  secretKey: Buffer;
  /** The most rows a list may have. */
  maxRows: number;
  /** The body may stop arriving for this long before the upload is refused (408), ms. */
  uploadIdleTimeoutMs: number;
  /** The whole upload may take this long, ms (408 past it). */
  uploadTimeoutMs: number;
}

interface CreateQuery {
  name?: string;
  webhook_url?: string;
  column?: string;
}

/** The largest upload accepted, bytes: a million rows of generous width, with room to spare. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

const schema = {
  tags: ['lists'],
  summary: 'Create a list job',
  description:
    'JSON `{"name", "emails": [...], "webhook_url"}`, or a CSV as the raw body (`text/csv`) or the ' +
    'multipart field `file`; up to 1,000,000 rows and 512 MB. The CSV email column is found by its ' +
    'header (email, e-mail, email_address, ...) or named with `column` (header name or 1-based ' +
    'number). Quota is charged per unique address as the list is processed, never at upload. A ' +
    '`webhook_url` whose host is, or resolves only to, a loopback, private or reserved address is ' +
    'refused (422, field `webhook_url`).',
  security: [{ bearerAuth: [] }],
  querystring: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'CSV uploads: the list name.' },
      webhook_url: { type: 'string', description: 'CSV uploads: POSTed a signed event on completion.' },
      column: { type: 'string', maxLength: 200, description: 'CSV uploads: the email column.' },
    },
  },
  response: {
    202: { description: 'The list, queued.', headers: accountingHeaders, $ref: 'CreatedList#' },
    ...apiErrorResponses({
      400: ['bad_request'],
      401: ['unauthorized'],
      408: ['request_timeout'],
      413: ['payload_too_large', 'storage_limit_reached'],
      422: ['validation_failed'],
      429: ['rate_limited', 'too_many_lists'],
      500: ['internal_error'],
    }),
  },
};

/** The upload route. */
export const listCreateRoute: FastifyPluginAsync<ListCreateDeps> = async (app, deps) => {
  // No deadline for the whole body (a 512 MB upload takes minutes): a bound on each wait instead.
  const config = { streamedBody: true };
  app.post<{ Querystring: CreateQuery }>('/lists', { schema, config }, async (request, reply) => {
    const caller = callerOf(request);
    let list: Awaited<ReturnType<ListService['create']>>;
    try {
      // Before a byte of the body is read: an account with no room is refused at once.
      const limits = storageLimits(caller.limits);
      const rows = await deps.lists.room(caller.accountId, limits);
      const upload = await readUpload(request, deps.lists, deps.maxRows, {
        idleMs: deps.uploadIdleTimeoutMs,
        totalMs: deps.uploadTimeoutMs,
        startedAt: performance.now(),
      });
      list = await deps.lists.create(
        { accountId: caller.accountId, apiKeyId: caller.keyId, source: upload.source, header: upload.header },
        upload.rows,
        upload.details,
        { rows, maxStoredRows: limits.maxStoredRows },
      );
    } catch (error) {
      // The body may be partly unread (and its stream ended early): this connection cannot carry
      // another request, so the client is told to open a new one.
      reply.header('connection', 'close');
      if (error instanceof UploadError) throw toApiError(error);
      if (error instanceof ListLimitError) {
        const code = error.limit === 'stored_rows' ? 'storage_limit_reached' : 'too_many_lists';
        throw new ApiError(code, { message: error.message });
      }
      throw error;
    }
    request.log.info({ listId: list.id, rows: list.counts.total }, 'list created');
    reply.code(202);
    return {
      ...listView(list),
      ...(list.webhookUrl !== null && { webhook_secret: webhookSecretFor(deps.secretKey, list.id) }),
    };
  });
};

interface Upload {
  source: 'json' | 'csv';
  header: string[] | null;
  rows: AsyncIterable<IncomingRow>;
  details: () => ListDetails;
}

/** Starts reading the body in the format its Content-Type names. */
async function readUpload(
  request: FastifyRequest<{ Querystring: CreateQuery }>,
  lists: ListCreateDeps['lists'],
  maxRows: number,
  timeouts: UploadTimeouts,
): Promise<Upload> {
  const query = request.query;
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // A body announced over the limit is refused before a byte of it is read.
  if (Number(request.headers['content-length']) > MAX_UPLOAD_BYTES)
    throw new UploadError('payload_too_large', uploadTooLarge(MAX_UPLOAD_BYTES));
  const body = () => uploadBytes(request.body as Readable, timeouts, MAX_UPLOAD_BYTES);
  if (mediaType === 'application/json') {
    const upload = readJsonUpload(body(), { maxRows });
    return {
      source: 'json',
      header: null,
      rows: (async function* () {
        for await (const email of upload.emails) yield { email };
      })(),
      details: () => {
        const fields = upload.fields();
        return {
          name: fields.name ?? checkListName(query.name) ?? DEFAULT_LIST_NAME,
          webhookUrl: fields.webhookUrl ?? checkWebhookUrl(query.webhook_url) ?? null,
        };
      },
    };
  }
  let fields: Record<string, string> = {};
  let source: AsyncIterable<Buffer>;
  if (mediaType === 'multipart/form-data') {
    const multipart = await multipartCsv(request, { timeouts, maxBytes: MAX_UPLOAD_BYTES });
    fields = multipart.fields;
    source = multipart.file;
  } else {
    source = body();
  }
  // Checked before any row is stored when known up front (where the webhook points too); a form
  // may name the list after its file, so the details are taken again once the rows are read (a bad
  // late field then removes the list).
  const detailsOf = () => ({
    name: checkListName(fields.name ?? query.name) ?? DEFAULT_LIST_NAME,
    webhookUrl: checkWebhookUrl(fields.webhook_url ?? query.webhook_url) ?? null,
  });
  await lists.checkWebhookTarget(detailsOf().webhookUrl);
  const csv = await readCsvUpload(source, { column: fields.column ?? query.column, maxRows });
  return { source: 'csv', header: csv.header, rows: csv.rows, details: detailsOf };
}

function toApiError(error: UploadError): ApiError {
  return new ApiError(error.code, {
    message: error.code === 'validation_failed' ? undefined : error.message,
    errors: error.field === null ? [] : [{ field: error.field, message: error.message }],
  });
}
