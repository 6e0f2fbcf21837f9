/**
 * Response schemas shared by the routes: the error body, readiness, and the headers of
 * authenticated responses. `sharedSchemas` are added to Fastify once; routes refer to them by
 * `$id`, and the OpenAPI document lists them under `components.schemas`.
 */

import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { accountSchemas } from './accounts.ts';
import { auditSchemas } from './audit.ts';
import { campaignCheckSchemas } from './campaign-checks.ts';
import { feedbackSchemas } from './feedback.ts';
import { integrationSchemas } from './integrations.ts';
import { createdListSchema, listPageSchema, listRowPageSchema, listSchema } from './list.ts';
import { bulkResponseSchema, verificationResultSchema } from './result.ts';
import { runSchemas } from './runs.ts';
import { scheduleSchemas } from './schedules.ts';

/** Shared schema `Error`: the body of every error response. */
export const errorBodySchema = {
  $id: 'Error',
  type: 'object',
  required: ['message', 'errors', 'code', 'request_id'],
  properties: {
    message: { type: 'string', description: 'What went wrong, for people.' },
    errors: {
      type: 'array',
      description: 'The fields at fault; [] when no field is.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', examples: ['email', 'emails', 'emails[3]'] },
          message: { type: 'string', examples: ['Invalid email format'] },
        },
      },
    },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable, for programs.' },
    request_id: { type: 'string', description: 'Equal to the X-Request-Id response header.' },
  },
} as const;

const checksSchema = {
  type: 'object',
  additionalProperties: { type: 'string', enum: ['ok', 'degraded', 'error'] },
  description: 'Each dependency and whether it answered.',
} as const;

/** Shared schema `Readiness`: /readyz when every dependency answers. */
export const readinessSchema = {
  $id: 'Readiness',
  type: 'object',
  required: ['status', 'checks'],
  properties: { status: { type: 'string', enum: ['ok'] }, checks: checksSchema },
} as const;

/** Shared schema `NotReady`: /readyz when a dependency does not answer (the error body plus checks). */
export const notReadySchema = {
  $id: 'NotReady',
  type: 'object',
  required: ['message', 'errors', 'code', 'request_id', 'checks'],
  properties: { ...errorBodySchema.properties, checks: checksSchema },
} as const;

/** Every schema routes refer to by `$id`. */
export const sharedSchemas = [
  verificationResultSchema,
  bulkResponseSchema,
  errorBodySchema,
  readinessSchema,
  notReadySchema,
  listSchema,
  createdListSchema,
  listPageSchema,
  listRowPageSchema,
  ...accountSchemas,
  ...integrationSchemas,
  ...campaignCheckSchemas,
  ...runSchemas,
  ...scheduleSchemas,
  ...feedbackSchemas,
  ...auditSchemas,
] as const;

const integerHeader = (description: string) => ({ type: 'integer', description }) as const;

/** Headers of every authenticated response. */
export const accountingHeaders = {
  'RateLimit-Limit': integerHeader("The key's requests per second."),
  'RateLimit-Remaining': integerHeader('Requests left in the bucket now.'),
  'RateLimit-Reset': integerHeader('Seconds until the bucket is full again.'),
  'X-Quota-Limit': integerHeader('Monthly verifications allowed.'),
  'X-Quota-Remaining': integerHeader("Monthly verifications left, after this request's charge."),
  'X-Quota-Reset': {
    type: 'string',
    format: 'date-time',
    description: 'When the monthly quota resets (UTC).',
  },
  'X-Request-Id': { type: 'string', description: 'The request id, also in error bodies.' },
} as const;

const retryAfter = { 'Retry-After': integerHeader('Seconds to wait before trying again.') } as const;

/** A response entry that refers to a shared schema. */
function refResponse(id: string, description: string, headers?: object) {
  return headers === undefined ? { description, $ref: `${id}#` } : { description, headers, $ref: `${id}#` };
}

/** Error responses of the authenticated routes, each with the codes it may carry. */
/** The errors every route behind authentication may answer, and `extra` ones of its own. */
export function authedErrorResponses(extra: Record<number, readonly ErrorCode[]> = {}) {
  return apiErrorResponses({
    401: ['unauthorized'],
    403: ['forbidden'],
    429: ['rate_limited'],
    500: ['internal_error'],
    ...extra,
  });
}

export function apiErrorResponses(codes: Record<number, readonly ErrorCode[]>) {
  const responses: Record<number, ReturnType<typeof refResponse>> = {};
  for (const [status, list] of Object.entries(codes)) {
    const headers =
      status === '401'
        ? {
            'WWW-Authenticate': {
              type: 'string',
              description: '`Bearer`, with error="invalid_token" for a bad key.',
            },
          }
        : status === '429'
          ? { ...accountingHeaders, ...retryAfter }
          : accountingHeaders;
    responses[Number(status)] = refResponse('Error', `Error; code: ${list.join(', ')}.`, headers);
  }
  return responses;
}

/** A success response with the accounting headers. */
export function okResponse(id: string, description: string) {
  return refResponse(id, description, accountingHeaders);
}

/** A response referring to a shared schema, without headers. */
export function plainResponse(id: string, description: string) {
  return refResponse(id, description);
}
