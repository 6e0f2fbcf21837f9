/**
 * The API's error model in one place: every code with its HTTP status and
 * default message, a coded constructor per error, and the Fastify error, not-found and client-error
 * handlers that always answer `{"message", "errors", "code", "request_id"}`. docs/api.md lists the
 * same codes; a test keeps the two in step.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { RateDecision } from '../usage/ports.ts';
import type { QuotaState } from '../usage/verification-service.ts';
import { quotaHeaders } from './quota-headers.ts';
import { type FieldError, fieldErrorsOf } from './schemas/validation-errors.ts';

/** Every error code the API answers with, its status and default message. */
export const ERROR_CODES = {
  bad_request: { status: 400, message: 'The request body must be a JSON object sent as application/json' },
  unauthorized: {
    status: 401,
    message: 'A valid API key (Authorization: Bearer <API_KEY>) or a signed-in session is required',
  },
  forbidden: { status: 403, message: 'This request is not allowed' },
  signup_closed: {
    status: 403,
    message: 'Sign-up is closed on this service: ask its operator for an account',
  },
  account_unconfirmed: {
    status: 403,
    message:
      'Confirm your email address first: follow the link sent to it at sign-up (the dashboard can send it again)',
  },
  not_found: { status: 404, message: 'No such endpoint' },
  method_not_allowed: { status: 405, message: 'This endpoint does not take this method' },
  request_timeout: { status: 408, message: 'The request was not received in time' },
  conflict: { status: 409, message: "The list's state does not allow this" },
  integration_disconnected: {
    status: 409,
    message: 'The platform refused the integration’s credentials: connect it again',
  },
  signature_invalid: {
    status: 401,
    message: 'The request is not signed by the platform, or was signed more than 5 minutes ago',
  },
  integration_scope_missing: {
    status: 409,
    message: 'The platform did not grant the integration a permission this needs: grant it and try again',
  },
  results_expired: {
    status: 410,
    message:
      "The list's results were deleted at the end of the account's retention; the list keeps its counts",
  },
  payload_too_large: { status: 413, message: 'The request body is larger than this endpoint accepts' },
  storage_limit_reached: { status: 413, message: "The account's lists hold as many rows as its plan allows" },
  validation_failed: { status: 422, message: 'The request body is not valid' },
  rate_limited: { status: 429, message: 'The per-second rate limit is exceeded' },
  quota_exceeded: { status: 429, message: 'The monthly verification quota is used up' },
  bulk_quota_exceeded: { status: 429, message: 'The monthly bulk-request quota is used up' },
  too_many_lists: { status: 429, message: 'The account has as many unfinished lists as its plan allows' },
  internal_error: { status: 500, message: 'An unexpected error occurred' },
  provider_unavailable: {
    status: 502,
    message: 'The email platform did not answer as expected; try again in a few minutes',
  },
  not_ready: { status: 503, message: 'The service is not ready' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type { FieldError };

/** The body of every error response. */
export interface ErrorBody {
  message: string;
  errors: FieldError[];
  code: ErrorCode;
  request_id: string;
}

/** An expected API error: a code, its status, the fields at fault and headers to send. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly errors: FieldError[];
  readonly headers: Record<string, string | number>;

  constructor(
    code: ErrorCode,
    options: { message?: string; errors?: FieldError[]; headers?: Record<string, string | number> } = {},
  ) {
    super(options.message ?? ERROR_CODES[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = ERROR_CODES[code].status;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }
}

/** 400: the body is not a JSON object sent as JSON. */
export function badRequest(message?: string): ApiError {
  return new ApiError('bad_request', { message });
}

/** 401; `tokenGiven` adds `error="invalid_token"` to the challenge (RFC 6750 §3). */
export function unauthorized(tokenGiven: boolean): ApiError {
  return new ApiError('unauthorized', {
    message: tokenGiven ? 'The API key is not valid or has been revoked' : undefined,
    headers: { 'www-authenticate': tokenGiven ? 'Bearer error="invalid_token"' : 'Bearer' },
  });
}

/** 401 for a sign-in that failed, or a session that ended; the challenge names the other way in. */
export function notSignedIn(message: string): ApiError {
  return new ApiError('unauthorized', { message, headers: { 'www-authenticate': 'Bearer' } });
}

/** 404 for a route that does not exist. */
export function notFound(method: string, path: string): ApiError {
  return new ApiError('not_found', { message: `No such endpoint: ${method} ${path}` });
}

/** 405 for a path that exists with other methods: `Allow` names them (RFC 9110 §15.5.6). */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): ApiError {
  return new ApiError('method_not_allowed', {
    message: `${path} does not take ${method}: use ${allowed.join(' or ')}`,
    headers: { allow: allowed.join(', ') },
  });
}

/** 413 for a body over the endpoint's limit, which the message names. */
export function payloadTooLarge(limitBytes?: number): ApiError {
  return new ApiError('payload_too_large', {
    message:
      limitBytes === undefined
        ? undefined
        : `The request body is larger than the ${byteSize(limitBytes)} this endpoint accepts`,
  });
}

/** 1 MB, 64 KB, 512 MB: a limit as people read it. */
function byteSize(bytes: number): string {
  const mb = 1024 * 1024;
  if (bytes >= mb && bytes % mb === 0) return `${bytes / mb} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** 404 for a list that does not exist or belongs to another account (the two look alike). */
export function listNotFound(): ApiError {
  return new ApiError('not_found', { message: 'No such list' });
}

/** 410 for the results of a list whose retention is over (the list itself stays). */
export function resultsExpired(): ApiError {
  return new ApiError('results_expired');
}

/** 409 for an action the list's state does not allow. */
export function listConflict(action: string, state: string): ApiError {
  return new ApiError('conflict', { message: `The list is ${state}: it cannot be ${action}` });
}

/** 422 with the fields at fault. */
export function validationFailed(errors: FieldError[]): ApiError {
  return new ApiError('validation_failed', { errors });
}

/** 429 when the key's token bucket is empty. */
export function rateLimited(decision: RateDecision): ApiError {
  return new ApiError('rate_limited', { headers: { 'retry-after': decision.retryAfterSeconds } });
}

/** 429 when the monthly verification quota is used up; retry when the month turns. */
export function quotaExceeded(quota: QuotaState): ApiError {
  return new ApiError('quota_exceeded', {
    headers: { ...quotaHeaders(quota), 'retry-after': quota.resetSeconds },
  });
}

/** 429 when the monthly bulk-request quota is used up. */
export function bulkQuotaExceeded(quota: QuotaState): ApiError {
  return new ApiError('bulk_quota_exceeded', {
    headers: { ...quotaHeaders(quota), 'retry-after': quota.resetSeconds },
  });
}

/** 503 from /readyz. */
export function notReady(): ApiError {
  return new ApiError('not_ready');
}

/** The body of an error response. */
export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return { message: error.message, errors: error.errors, code: error.code, request_id: requestId };
}

// Fastify's own request failures, as the API's 400s. Their messages are fixed here: Fastify's may
// quote the body, which holds personal data.
const FASTIFY_400_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'The URL is not valid',
  FST_ERR_MAX_PARAM_LENGTH: 'The URL is too long',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty: send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

/** What is not valid, when it is not the body: the caller is told where to look. */
const VALIDATION_CONTEXTS: Readonly<Record<string, string | undefined>> = {
  querystring: 'The query string is not valid',
  params: 'The URL path is not valid',
  headers: 'A request header is not valid',
};

/**
 * Maps anything thrown while answering a request to an ApiError; `bodyLimit` is the route's, for
 * the message of a body over it.
 */
export function toApiError(error: FastifyError | Error, bodyLimit?: number): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  // Not a malformed request: a client that sends less (or to another endpoint) succeeds.
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return payloadTooLarge(bodyLimit);
  if (fastifyError.validation !== undefined) {
    const errors = fieldErrorsOf(fastifyError.validation);
    const where = VALIDATION_CONTEXTS[fastifyError.validationContext ?? 'body'];
    return where === undefined
      ? validationFailed(errors)
      : new ApiError('validation_failed', { errors, message: where });
  }
  const message = fastifyError.code === undefined ? undefined : FASTIFY_400_MESSAGES[fastifyError.code];
  if (message !== undefined) return badRequest(message);
  const status = fastifyError.statusCode;
  if (status === 404) return new ApiError('not_found');
  // Any other client error Fastify raises: the request is at fault, whatever it was.
  if (typeof status === 'number' && status >= 400 && status < 500)
    return badRequest('The request is malformed');
  return new ApiError('internal_error');
}

/** The one error handler: the documented body, and no internal detail for 5xx (logged instead). */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error, request.routeOptions?.bodyLimit);
  if (apiError.statusCode >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    // Debug only: the request line (request-log plugin) names the code already.
    request.log.debug({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
  }
  reply.code(apiError.statusCode).headers(apiError.headers).send(errorBody(apiError, request.id));
}

/**
 * Fastify's `frameworkErrors`: requests refused before routing (a malformed URL), which no hook
 * sees, answered like every other error.
 */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('x-request-id', request.id);
  handleError(error, request, reply);
}

/** Methods a route may have, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The not-found handler: 405 `method_not_allowed` with `Allow` when the path exists with other
 * methods (people try `GET /api/v1/verify?email=` as other verifiers take it), else 404
 * `not_found`, both with the same body.
 */
export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?', 1)[0] ?? '/';
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  const allowed = methodsOf(request, path);
  const apiError =
    allowed.length > 0 && !allowed.includes(request.method)
      ? methodNotAllowed(request.method, shown, allowed)
      : notFound(request.method, shown);
  reply.code(apiError.statusCode).headers(apiError.headers).send(errorBody(apiError, request.id));
}

/**
 * The methods routes take at `path`. The dashboard's catch-all (`GET /*`, whose `*` is the whole
 * path) does not count: it would make every unknown path a GET one, and unknown paths are 404s.
 */
function methodsOf(request: FastifyRequest, path: string): string[] {
  let whole = path;
  try {
    whole = decodeURIComponent(path);
  } catch {
    // The router refuses such a path before any handler: nothing to compare.
  }
  return METHODS.filter((method) => {
    const route = request.server.findRoute({ method, url: path });
    if (route === null) return false;
    const rest = (route.params as Record<string, string | undefined>)['*'];
    return rest === undefined || `/${rest}` !== whole;
  });
}

/**
 * Answers requests Node could not even parse (malformed HTTP, oversized headers, a slow client)
 * with the documented body too, then closes the connection, as Node does.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const apiError = timedOut
    ? new ApiError('request_timeout')
    : badRequest(
        error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large' : 'Malformed HTTP request',
      );
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(apiError, requestId));
  if (socket.writable) {
    const reason = timedOut ? 'Request Timeout' : 'Bad Request';
    socket.write(
      `HTTP/1.1 ${apiError.statusCode} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
