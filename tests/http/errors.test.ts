/**
 * The error model (src/http/errors.ts): every code is documented in docs/api.md with its status;
 * Fastify's own errors map to the API's codes; Ajv's errors map to the API's fields.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { ApiError, ERROR_CODES, toApiError } from '../../src/http/errors.ts';
import { fieldErrorsOf, fieldName } from '../../src/http/schemas/validation-errors.ts';

test('docs/api.md lists every error code with its status, and no other', async () => {
  const text = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const rows = [...text.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [
    match[2],
    Number(match[1]),
  ]);
  assert.deepEqual(
    Object.fromEntries(rows),
    Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status])),
  );
});

test("Fastify's body-parsing errors become 400 bad_request, a body over the limit 413; unknown errors 500 internal_error", () => {
  const fastifyError = (code: string, statusCode: number) =>
    Object.assign(new Error('detail'), { code, statusCode });
  for (const code of [
    'FST_ERR_CTP_INVALID_MEDIA_TYPE',
    'FST_ERR_CTP_EMPTY_JSON_BODY',
    'FST_ERR_CTP_INVALID_JSON_BODY',
    'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  ]) {
    const mapped = toApiError(fastifyError(code, code.endsWith('MEDIA_TYPE') ? 415 : 400));
    assert.equal(mapped.code, 'bad_request', code);
    assert.equal(mapped.statusCode, 400);
    assert.notEqual(mapped.message, 'detail');
  }
  const tooLarge = toApiError(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 64 * 1024);
  assert.equal(tooLarge.code, 'payload_too_large');
  assert.equal(tooLarge.statusCode, 413);
  assert.equal(tooLarge.message, 'The request body is larger than the 64 KB this endpoint accepts');
  assert.equal(toApiError(fastifyError('FST_ERR_BAD_URL', 400)).code, 'bad_request');
  assert.equal(toApiError(fastifyError('FST_ERR_NOT_FOUND', 404)).code, 'not_found');
  const internal = toApiError(new TypeError('secret detail'));
  assert.equal(internal.code, 'internal_error');
  assert.equal(internal.statusCode, 500);
  assert.equal(internal.message, 'An unexpected error occurred');
  assert.equal(toApiError(fastifyError('FST_ERR_SOMETHING', 503)).code, 'internal_error');
  const apiError = new ApiError('rate_limited');
  assert.equal(toApiError(apiError), apiError);
});

test('validation errors map to API fields', () => {
  const validation = [
    { keyword: 'type', instancePath: '/emails/3', schemaPath: '', params: {}, message: 'must be string' },
  ];
  const mapped = toApiError(Object.assign(new Error('body/emails/3 must be string'), { validation }));
  assert.equal(mapped.code, 'validation_failed');
  assert.equal(mapped.statusCode, 422);
  assert.deepEqual(mapped.errors, [{ field: 'emails[3]', message: 'Must be a string' }]);
  assert.deepEqual(
    fieldErrorsOf([{ keyword: 'minLength', instancePath: '/emails/3', schemaPath: '', params: {} }]),
    [{ field: 'emails[3]', message: 'Invalid email format' }],
    'a string that is no address',
  );
  assert.deepEqual(
    fieldErrorsOf([
      { keyword: 'required', instancePath: '', schemaPath: '', params: { missingProperty: 'email' } },
      { keyword: 'minLength', instancePath: '/email', schemaPath: '', params: {} },
    ]),
    [{ field: 'email', message: 'Required' }],
    'one entry per field, the first',
  );
  assert.equal(fieldName('/emails/12'), 'emails[12]');
  assert.equal(fieldName('/a~1b/c~0d/0/e'), 'a/b.c~d[0].e');
  assert.equal(fieldName(''), 'body');
});
