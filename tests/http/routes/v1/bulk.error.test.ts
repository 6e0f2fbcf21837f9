/**
 * POST /api/v1/verify/bulk, error paths: 400 body format, 422 per field (`emails`, `emails[3]`),
 * 429 quota_exceeded and bulk_quota_exceeded, and what each refusal charges (nothing).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../../../helpers/app.ts';
import { assertAccountingHeaders, assertError, BULK, nextMonthIso, post } from '../../expect.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ quota: 1000, rate: 1000 });
});
after(() => t.close());

for (const [name, raw] of [
  ['an array', '["a@multi-mx.test"]'],
  ['null', 'null'],
  ['a string', '"a@multi-mx.test"'],
  ['invalid JSON', '{"emails": ["a@multi-mx.test"'],
  ['empty', ''],
]) {
  test(`400 bad_request for a body that is ${name}`, async () => {
    const response = await post(t.app, BULK, raw!, t.auth());
    assertError(response, 400, 'bad_request');
    assertAccountingHeaders(response);
  });
}

test('400 bad_request for a wrong Content-Type', async () => {
  assertError(
    await post(t.app, BULK, '{"emails":[]}', { ...t.auth(), 'content-type': 'text/csv' }),
    400,
    'bad_request',
  );
});

const LIST = 'Must be an array of 1 to 100 email addresses';
const invalid: Array<[string, unknown, string, string]> = [
  ['emails missing', { email: 'a@multi-mx.test' }, 'emails', 'Required'],
  ['emails a string', { emails: 'a@multi-mx.test' }, 'emails', LIST],
  ['emails an object', { emails: { 0: 'a@multi-mx.test' } }, 'emails', LIST],
  ['emails null', { emails: null }, 'emails', LIST],
  ['emails empty', { emails: [] }, 'emails', 'Must hold at least 1 email address'],
  [
    '101 entries',
    { emails: Array.from({ length: 101 }, (_, i) => `u${i}@multi-mx.test`) },
    'emails',
    'Must hold at most 100 email addresses',
  ],
  [
    'entry 3 a number',
    { emails: ['a@multi-mx.test', 'b@multi-mx.test', 'c@multi-mx.test', 4] },
    'emails[3]',
    'Must be a string',
  ],
  ['entry 0 empty', { emails: ['', 'b@multi-mx.test'] }, 'emails[0]', 'Invalid email format'],
  ['entry 1 white space', { emails: ['a@multi-mx.test', '  \t '] }, 'emails[1]', 'Invalid email format'],
  ['entry 2 null', { emails: ['a@multi-mx.test', 'b@multi-mx.test', null] }, 'emails[2]', 'Must be a string'],
  ['entry 0 an object', { emails: [{ email: 'a@multi-mx.test' }] }, 'emails[0]', 'Must be a string'],
  [
    'entry 1 over 1024 characters',
    { emails: ['a@multi-mx.test', `${'x'.repeat(1011)}@multi-mx.test`] },
    'emails[1]',
    'Invalid email format',
  ],
];
for (const [name, body, field, message] of invalid) {
  test(`422 validation_failed: ${name} → ${field}`, async () => {
    const before = await t.usage();
    const response = await post(t.app, BULK, body, t.auth());
    assertError(response, 422, 'validation_failed', [{ field, message }]);
    assertAccountingHeaders(response);
    assert.deepEqual(await t.usage(), before, 'a refused request charges nothing');
  });
}

test('429 quota_exceeded when no unit is left; the bulk unit is not spent', async () => {
  const { key, record } = await t.addKey({ quota: 0, rate: 1000 });
  const response = await post(t.app, BULK, { emails: ['a@multi-mx.test'] }, t.auth(key));
  assertError(response, 429, 'quota_exceeded');
  assert.ok(Number(response.headers['retry-after']) >= 1);
  assert.equal(assertAccountingHeaders(response).quotaRemaining, 0);
  assert.deepEqual(await t.usage(record.id), { verifications: 0, bulkRequests: 0 });
});

test('429 bulk_quota_exceeded once the monthly bulk requests are used up', async () => {
  const { key, record } = await t.addKey({ quota: 100, bulkQuota: 2, rate: 1000 });
  for (let i = 0; i < 2; i++) {
    assert.equal((await post(t.app, BULK, { emails: [`b${i}@multi-mx.test`] }, t.auth(key))).statusCode, 200);
  }
  const response = await post(t.app, BULK, { emails: ['b9@multi-mx.test'] }, t.auth(key));
  assertError(response, 429, 'bulk_quota_exceeded');
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(Math.abs(retryAfter - (Date.parse(nextMonthIso()) - Date.now()) / 1000) < 5);
  assert.equal(assertAccountingHeaders(response).quotaRemaining, 98);
  assert.deepEqual(await t.usage(record.id), { verifications: 2, bulkRequests: 2 });
  // Single verifications do not use the bulk quota.
  assert.equal(
    (await post(t.app, '/api/v1/verify', { email: 'single@multi-mx.test' }, t.auth(key))).statusCode,
    200,
  );
});

test('order: a bulk-quota-exhausted key with an invalid body gets 422', async () => {
  const { key } = await t.addKey({ bulkQuota: 0, rate: 1000 });
  assertError(await post(t.app, BULK, { emails: [] }, t.auth(key)), 422, 'validation_failed', [
    { field: 'emails' },
  ]);
  assertError(
    await post(t.app, BULK, { emails: ['a@multi-mx.test'] }, t.auth(key)),
    429,
    'bulk_quota_exceeded',
  );
});
