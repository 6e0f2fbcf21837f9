/**
 * The hostile-input harness checks itself: its response checks must catch what they are meant to,
 * its oracle must read bodies as docs/api.md does, and a seed must always give the same cases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { responseProblems, type SeenResponse } from './hostile-checks.ts';
import { randomCases } from './hostile-generators.ts';
import { expectFromJsonBody } from './hostile-oracle.ts';
import { parseResponse } from './hostile-raw-http.ts';

const id = 'req-1';
const json = (status: number, body: unknown, headers: Record<string, string> = {}): SeenResponse => ({
  status,
  headers: { 'x-request-id': id, 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const result = {
  email: 'jane@example.test',
  checks: {
    syntax: true,
    domain_exists: true,
    mx_records: true,
    mailbox_exists: true,
    disposable: false,
    role_based: false,
    suggestions: [],
    free_provider: false,
    catch_all: null,
    smtp: 'skipped',
    catch_all_confidence: null,
  },
  score: 75,
  status: 'PROBABLY_VALID',
  reason: 'probe_skipped',
  duration_ms: 1,
  evidence: {
    mx_host: null,
    mx_address: null,
    provider: null,
    smtp_reply: null,
    catch_all_probe: { ran: false, outcome: null, reply: null },
    catch_all_signals: [],
  },
};

test('the checks accept the documented bodies', () => {
  const error = { message: 'bad', errors: [], code: 'bad_request', request_id: id };
  assert.deepEqual(responseProblems('verify', 'POST', { statuses: [400] }, json(400, error)), []);
  const invalid = {
    ...error,
    code: 'validation_failed',
    errors: [{ field: 'email', message: 'Invalid email format' }],
  };
  assert.deepEqual(
    responseProblems(
      'verify',
      'POST',
      { statuses: [422], fields: ['email'], invalidFormatMessage: true },
      json(422, invalid),
    ),
    [],
  );
  assert.deepEqual(
    responseProblems('verify', 'POST', { statuses: [200], email: ' jane@example.test ' }, json(200, result)),
    [],
  );
  const bulk = { results: [result], unprocessed: [] };
  assert.deepEqual(
    responseProblems('bulk', 'POST', { statuses: [200], emails: ['jane@example.test'] }, json(200, bulk)),
    [],
  );
});

test('the checks catch 5xx, foreign error bodies, missing ids and malformed results', () => {
  const fastifyDefault = { statusCode: 400, code: 'FST_ERR_BAD_URL', error: 'Bad Request', message: 'x' };
  assert.ok(responseProblems('other', 'POST', { statuses: [400] }, json(400, fastifyDefault)).length >= 3);
  const internal = { message: 'oops', errors: [], code: 'internal_error', request_id: id };
  assert.match(
    responseProblems('verify', 'POST', { statuses: [400] }, json(500, internal)).join(),
    /server error 500/,
  );
  const noId = {
    ...json(400, { message: 'm', errors: [], code: 'bad_request', request_id: 'other' }),
    headers: {},
  };
  assert.match(responseProblems('verify', 'POST', { statuses: [400] }, noId).join(), /X-Request-Id/);
  const unauthorized = { message: 'm', errors: [], code: 'unauthorized', request_id: id };
  assert.match(
    responseProblems('verify', 'POST', { statuses: [401] }, json(401, unauthorized)).join(),
    /WWW-Authenticate/,
  );
  const wrongField = {
    message: 'm',
    errors: [{ field: 'emails', message: 'x' }],
    code: 'validation_failed',
    request_id: id,
  };
  assert.match(
    responseProblems('verify', 'POST', { statuses: [422], fields: ['email'] }, json(422, wrongField)).join(),
    /expected a field/,
  );
  const { reason: _dropped, ...noReason } = result;
  assert.match(responseProblems('verify', 'POST', { statuses: [200] }, json(200, noReason)).join(), /keys/);
  assert.match(
    responseProblems('verify', 'POST', { statuses: [200], invalidSyntax: true }, json(200, result)).join(),
    /INVALID_SYNTAX/,
  );
  const leaky = {
    message: 'at foo (/srv/app/node_modules/x.js:1:1)',
    errors: [],
    code: 'bad_request',
    request_id: id,
  };
  assert.match(
    responseProblems('verify', 'POST', { statuses: [400] }, json(400, leaky)).join(),
    /stack trace/,
  );
});

test('the oracle reads bodies as docs/api.md does', () => {
  const expect = (text: string | Buffer, endpoint: 'verify' | 'bulk' = 'verify') =>
    expectFromJsonBody(endpoint, typeof text === 'string' ? Buffer.from(text) : text);
  assert.deepEqual(expect('[]').statuses, [400]);
  assert.deepEqual(expect('{"email"').statuses, [400]);
  assert.deepEqual(expect('{"email":5}'), {
    statuses: [422],
    fields: ['email'],
    invalidFormatMessage: false,
  });
  assert.deepEqual(expect(`{"email":"${'a'.repeat(1025)}"}`).statuses, [422]);
  assert.equal(expect('{"email":"\\ud800@example.test"}').invalidSyntax, true);
  assert.deepEqual(expect('{"emails":["a@b.test",""]}', 'bulk').fields, ['emails[1]']);
  assert.deepEqual(expect('{"__proto__":{"email":"a@b.test"}}').statuses, [422, 400]);
  // Invalid UTF-8: the server sees U+FFFD; the exact submitted text is unknown, so not compared.
  assert.equal(
    expect(Buffer.from([...Buffer.from('{"email":"a'), 0xed, 0xa0, 0x80, ...Buffer.from('@b.test"}')])).email,
    undefined,
  );
});

test('a seed always draws the same cases, another seed others', () => {
  const domains = ['example.test'];
  const shape = (seed: number) =>
    randomCases(seed, 50, { domains }).map((c) => `${c.kind} ${c.body?.toString('hex')}`);
  assert.deepEqual(shape(7), shape(7));
  assert.notDeepEqual(shape(7), shape(8));
});

test('the raw client parses Content-Length and chunked responses, and waits for incomplete ones', () => {
  const plain = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Request-Id: a\r\n\r\nok');
  assert.deepEqual(parseResponse(plain), {
    status: 200,
    headers: { 'content-length': '2', 'x-request-id': 'a' },
    body: 'ok',
  });
  const chunked = Buffer.from(
    'HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n1\r\n!\r\n0\r\n\r\n',
  );
  assert.equal(parseResponse(chunked)?.body, 'ok!');
  assert.equal(parseResponse(plain.subarray(0, plain.length - 1)), undefined);
});
