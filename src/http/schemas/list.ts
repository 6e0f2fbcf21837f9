/**
 * The list job as JSON Schema: serializes list responses and documents them in the
 * OpenAPI document. The shape is `ListView` (src/lists/list-view.ts).
 */
import { LIST_STATES } from '../../lists/ports.ts';
import { STATUS_NAMES } from './result.ts';

const nullableString = { type: ['string', 'null'] } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;

const countsSchema = {
  type: 'object',
  description: 'Rows: all, unique addresses, processed so far, and processed rows per status.',
  required: ['total', 'unique', 'processed', ...STATUS_NAMES.map((status) => status.toLowerCase())],
  properties: {
    total: { ...count, description: 'Rows uploaded.' },
    unique: { ...count, description: 'Unique normalized addresses (each verified and charged once).' },
    processed: { ...count, description: 'Rows with a final result.' },
    ...Object.fromEntries(STATUS_NAMES.map((status) => [status.toLowerCase(), count])),
  },
} as const;

/** Shared schema `List`. */
export const listSchema = {
  $id: 'List',
  type: 'object',
  required: [
    'id',
    'name',
    'state',
    'source',
    'counts',
    'progress',
    'message',
    'rechecks',
    'webhook_url',
    'created_at',
    'started_at',
    'finished_at',
    'updated_at',
    'results_expired',
    'results_expired_at',
    'links',
  ],
  properties: {
    id: { type: 'string', examples: ['lst_4f0c2d0a9b8e4e53a1f0c7d6e5b4a392'] },
    name: { type: 'string' },
    state: { type: 'string', enum: [...LIST_STATES] },
    source: { type: 'string', enum: ['json', 'csv'] },
    counts: countsSchema,
    progress: { type: 'number', minimum: 0, maximum: 1, description: 'Processed rows over total rows.' },
    message: { ...nullableString, description: 'Why the list stopped early (quota used up), or null.' },
    rechecks: {
      description:
        'While a running list waits to check again the addresses that had no answer yet (greylisting, a timeout, an unreachable server, our DNS failing): the rows waiting and when the next re-check is due. Null otherwise.',
      anyOf: [
        {
          type: 'object',
          required: ['pending', 'next_at'],
          properties: {
            pending: { ...count, description: 'Rows waiting for a re-check.' },
            next_at: { type: 'string', format: 'date-time', description: 'When the next re-check is due.' },
          },
        },
        { type: 'null' },
      ],
    },
    webhook_url: nullableString,
    created_at: { type: 'string', format: 'date-time' },
    started_at: nullableTime,
    finished_at: nullableTime,
    updated_at: { type: 'string', format: 'date-time' },
    results_expired: {
      type: 'boolean',
      description:
        "True once the list's rows and results were deleted at the end of the account's retention (`retention_days` after it finished): the list stays with its counts, and its results answer 410 `results_expired`.",
    },
    results_expired_at: { ...nullableTime, description: 'When they were deleted; null while kept.' },
    links: {
      type: 'object',
      required: ['self', 'results'],
      properties: { self: { type: 'string' }, results: { type: 'string' } },
    },
  },
} as const;

/** Shared schema `CreatedList`: the 202 of `POST /lists`, with the webhook secret when one applies. */
export const createdListSchema = {
  $id: 'CreatedList',
  type: 'object',
  required: listSchema.required,
  properties: {
    ...listSchema.properties,
    webhook_secret: {
      type: 'string',
      description:
        "Given once, when `webhook_url` is set: verifies the `Mailvet-Signature` of this list's webhooks (docs/webhooks.md).",
    },
  },
} as const;

/** Shared schema `ListPage`: `GET /lists`. */
export const listPageSchema = {
  $id: 'ListPage',
  type: 'object',
  required: ['lists', 'next_cursor'],
  properties: {
    lists: { type: 'array', items: { $ref: 'List#' } },
    next_cursor: { ...nullableString, description: 'Pass as `cursor` for the next page; null on the last.' },
  },
} as const;

/** Shared schema `ListRowPage`: `GET /lists/{id}/rows`, a page of a list's rows for people to read. */
export const listRowPageSchema = {
  $id: 'ListRowPage',
  type: 'object',
  required: ['rows', 'total', 'offset', 'limit'],
  properties: {
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['row', 'email', 'result'],
        properties: {
          row: { type: 'integer', minimum: 1, description: "The row's number in the upload, from 1." },
          email: { type: 'string', description: 'The address as uploaded (trimmed).' },
          result: {
            description: 'Its final result; null while it has none yet.',
            anyOf: [{ $ref: 'VerificationResult#' }, { type: 'null' }],
          },
        },
      },
    },
    total: { ...count, description: 'Rows the filter keeps, in all.' },
    offset: { ...count, description: 'Rows of those before this page.' },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

/**
 * The request body of `POST /lists`, for the OpenAPI document only: the route reads its body as a
 * stream (no schema validates it whole), so the three accepted forms are described here.
 */
export const listUploadRequestBody = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['emails'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200, default: 'Untitled list' },
          emails: {
            type: 'array',
            minItems: 1,
            maxItems: 1_000_000,
            items: { type: 'string', minLength: 1, maxLength: 1024 },
          },
          webhook_url: { type: 'string', format: 'uri', maxLength: 2048 },
        },
      },
    },
    'text/csv': {
      schema: { type: 'string', description: 'UTF-8 CSV; the email column found by header or `column`.' },
    },
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          name: { type: 'string' },
          webhook_url: { type: 'string' },
          column: { type: 'string' },
          file: { type: 'string', format: 'binary', description: 'The CSV; fields after it are ignored.' },
        },
      },
    },
  },
} as const;
