/**
 * Assertions shared by the HTTP tests: the documented error body, the accounting headers, and a
 * request helper. The error body must be exactly `{message, errors, code, request_id}`, with
 * `request_id` equal to the `X-Request-Id` header.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/** Paths of the two verification routes. */
export const VERIFY = '/api/v1/verify';
export const BULK = '/api/v1/verify/bulk';

/** POSTs a JSON value (or a raw string with the given content type). */
export function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const options: InjectOptions = {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
  };
  options.payload = typeof body === 'string' ? body : JSON.stringify(body);
  return app.inject(options);
}

/** Asserts the documented error body: status, code, fields at fault, and the request id. */
export function assertError(
  response: LightMyRequestResponse,
  status: number,
  code: string,
  fields: Array<{ field: string; message?: string }> = [],
): Record<string, unknown> {
  assert.equal(response.statusCode, status, `status (body: ${response.body.slice(0, 300)})`);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'errors', 'message', 'request_id']);
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  const requestId = response.headers['x-request-id'];
  assert.equal(typeof requestId, 'string');
  assert.equal(body.request_id, requestId);
  const errors = body.errors as Array<{ field: string; message: string }>;
  assert.equal(errors.length, fields.length, `errors: ${JSON.stringify(errors)}`);
  fields.forEach((expected, i) => {
    assert.deepEqual(Object.keys(errors[i]!).sort(), ['field', 'message']);
    assert.equal(errors[i]!.field, expected.field);
    if (expected.message !== undefined) assert.equal(errors[i]!.message, expected.message);
  });
  return body;
}

/** The first instant of next month (UTC), as X-Quota-Reset gives it. */
export function nextMonthIso(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/** Asserts the six accounting headers; returns them as numbers (reset as a string). */
export function assertAccountingHeaders(response: LightMyRequestResponse | Response): {
  rateLimit: number;
  rateRemaining: number;
  rateReset: number;
  quotaLimit: number;
  quotaRemaining: number;
  quotaReset: string;
} {
  const get = (name: string): string => {
    const value = response.headers instanceof Headers ? response.headers.get(name) : response.headers[name];
    assert.equal(typeof value, 'string', `header ${name}`);
    return value as string;
  };
  const integer = (name: string): number => {
    const text = get(name);
    assert.match(text, /^\d+$/, `${name} is an integer`);
    return Number(text);
  };
  const quotaReset = get('x-quota-reset');
  assert.equal(quotaReset, nextMonthIso());
  return {
    rateLimit: integer('ratelimit-limit'),
    rateRemaining: integer('ratelimit-remaining'),
    rateReset: integer('ratelimit-reset'),
    quotaLimit: integer('x-quota-limit'),
    quotaRemaining: integer('x-quota-remaining'),
    quotaReset,
  };
}

/** Asserts that a response carries none of the accounting headers (unauthenticated). */
export function assertNoAccountingHeaders(response: LightMyRequestResponse): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'x-quota-limit', 'x-quota-remaining']) {
    assert.equal(response.headers[name], undefined, `no ${name}`);
  }
}
