/**
 * POST /api/v1/feedback and /feedback/bulk on the real app (SQLite store, composition root): the
 * counts, duplicates, no verification charged, the accounting headers; every malformed or hostile
 * body a documented 4xx (never a 500) that stores nothing; the per-account cap refusing with 413
 * `storage_limit_reached`; an unauthenticated request refused before anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertAccountingHeaders, assertError, post } from '../http/expect.ts';

// These tests send feedback faster than an account's pace allows (the pace has its own test).
const UNPACED = { MAILVET_FEEDBACK_REQUESTS_PER_SECOND: '1000' };

const FEEDBACK = '/api/v1/feedback';
const BULK = '/api/v1/feedback/bulk';

let t: TestApp;
before(async () => {
  t = await testApp({ rate: 1000, quota: 100, plan: 'starter', env: UNPACED });
});
after(() => t?.close());

const stored = () => t.store.feedback.countEvents(t.keyRecord.accountId);

describe('feedback, happy paths', () => {
  it('records one event and tells a repeat from a new one; no verification is charged', async () => {
    const before = await stored();
    const body = { email: 'Jane.Doe@multi-mx.test', event: 'hard_bounce', at: '2026-10-01T08:00:00Z' };
    const first = await post(t.app, FEEDBACK, body, t.auth());
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { recorded: 1, duplicates: 0 });
    assertAccountingHeaders(first);
    // The same event again, in another case and with the instant written in another zone.
    const again = await post(
      t.app,
      FEEDBACK,
      { ...body, email: ' jane.doe@MULTI-MX.test ', at: '2026-10-01T10:00:00+02:00' },
      t.auth(),
    );
    assert.deepEqual(again.json(), { recorded: 0, duplicates: 1 });
    const later = await post(t.app, FEEDBACK, { ...body, event: 'delivered', extra: 'ignored' }, t.auth());
    assert.deepEqual(later.json(), { recorded: 1, duplicates: 0 });
    assert.equal(await stored(), before + 2);
    assert.equal((await t.usage()).verifications, 0, 'feedback is free');
  });

  it('records a bulk request and counts the duplicates in it', async () => {
    const before = await stored();
    const events = [
      { email: 'a@multi-mx.test', event: 'soft_bounce', at: '2026-10-02T00:00:00Z' },
      { email: 'b@multi-mx.test', event: 'complaint' },
      { email: 'A@multi-mx.test', event: 'soft_bounce', at: '2026-10-02T00:00:00.000Z' },
    ];
    const response = await post(t.app, BULK, { events }, t.auth());
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { recorded: 2, duplicates: 1 });
    assert.equal(await stored(), before + 2);
  });

  it('takes 10,000 events in one request', async () => {
    const before = await stored();
    const events = Array.from({ length: 10_000 }, (_, i) => ({
      email: `user${i}@multi-mx.test`,
      event: 'delivered',
      at: '2026-10-03T00:00:00Z',
    }));
    const response = await post(t.app, BULK, { events }, t.auth());
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
    assert.deepEqual(response.json(), { recorded: 10_000, duplicates: 0 });
    assert.equal(await stored(), before + 10_000);
  });
});

describe('feedback, refused requests store nothing', () => {
  const longAddress = `${'x'.repeat(2_000)}@multi-mx.test`;
  const cases: Array<{
    name: string;
    url: string;
    body: unknown;
    status: number;
    code: string;
    fields?: Array<{ field: string; message?: string }>;
  }> = [
    {
      name: 'no email',
      url: FEEDBACK,
      body: { event: 'hard_bounce' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'email', message: 'Required' }],
    },
    {
      name: 'an unknown event',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'bounced' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'event', message: 'Must be one of: hard_bounce, soft_bounce, delivered, complaint' }],
    },
    {
      name: 'not an address',
      url: FEEDBACK,
      body: { email: 'not an address', event: 'hard_bounce' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'email', message: 'Invalid email format' }],
    },
    {
      name: 'an address over 1,024 characters',
      url: FEEDBACK,
      body: { email: longAddress, event: 'hard_bounce' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'email', message: 'Invalid email format' }],
    },
    {
      name: 'an instant that is not one',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'delivered', at: 'yesterday' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'at' }],
    },
    {
      name: 'an instant without a zone',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'delivered', at: '2026-10-01T08:00:00' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'at' }],
    },
    {
      name: 'an instant in the future',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'delivered', at: '2999-01-01T00:00:00Z' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'at' }],
    },
    {
      name: 'a number for the address',
      url: FEEDBACK,
      body: { email: 5, event: 'delivered' },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'email', message: 'Must be a string' }],
    },
    {
      name: 'a number for the instant',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'delivered', at: 1_700_000_000 },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'at', message: 'Must be a string' }],
    },
    {
      name: 'a huge instant',
      url: FEEDBACK,
      body: {
        email: 'a@multi-mx.test',
        event: 'delivered',
        at: `2026-10-01T08:00:00${'0'.repeat(100_000)}Z`,
      },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'at', message: 'Must be at most 64 characters long' }],
    },
    {
      name: 'a huge event',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: 'x'.repeat(500_000) },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'event' }],
    },
    {
      name: 'null for the event',
      url: FEEDBACK,
      body: { email: 'a@multi-mx.test', event: null },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'event', message: 'Must be a string' }],
    },
    {
      name: 'an array body',
      url: FEEDBACK,
      body: [{ email: 'a@multi-mx.test', event: 'delivered' }],
      status: 400,
      code: 'bad_request',
    },
    { name: 'a null body', url: FEEDBACK, body: 'null', status: 400, code: 'bad_request' },
    { name: 'a body that is not JSON', url: BULK, body: '{"events": [', status: 400, code: 'bad_request' },
    {
      name: 'no events',
      url: BULK,
      body: { events: [] },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'events' }],
    },
    {
      name: 'events that are not an array',
      url: BULK,
      body: { events: { email: 'a@multi-mx.test', event: 'delivered' } },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'events', message: 'Must be an array' }],
    },
    {
      name: 'an event that is not an object',
      url: BULK,
      body: { events: ['a@multi-mx.test'] },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'events[0]', message: 'Must be an object' }],
    },
    {
      name: 'more than 10,000 events',
      url: BULK,
      body: { events: Array.from({ length: 10_001 }, () => ({ email: 'a@b.test', event: 'delivered' })) },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'events', message: 'Must have at most 10000 items' }],
    },
    {
      name: 'an entry with a bad event type, named by its index',
      url: BULK,
      body: {
        events: [
          { email: 'a@multi-mx.test', event: 'delivered' },
          { email: 'b@multi-mx.test', event: ['hard_bounce'] },
        ],
      },
      status: 422,
      code: 'validation_failed',
      fields: [{ field: 'events[1].event', message: 'Must be a string' }],
    },
    {
      name: 'addresses that are not valid, each named by its index, the valid ones stored neither',
      url: BULK,
      body: {
        events: [
          { email: 'ok@multi-mx.test', event: 'hard_bounce' },
          { email: 'no-at-sign', event: 'hard_bounce' },
          { email: 'ok2@multi-mx.test', event: 'delivered', at: '2026-10-01T00:00:00Z' },
          { email: 'jane@', event: 'hard_bounce' },
        ],
      },
      status: 422,
      code: 'validation_failed',
      fields: [
        { field: 'events[1].email', message: 'Invalid email format' },
        { field: 'events[3].email', message: 'Invalid email format' },
      ],
    },
  ];

  for (const each of cases) {
    it(`${each.name}: ${each.status} ${each.code}`, async () => {
      const before = await stored();
      const response = await post(t.app, each.url, each.body, t.auth());
      assertError(response, each.status, each.code, each.fields ?? []);
      assert.equal(await stored(), before);
    });
  }

  it('a month in the thirteenth: the validator names `at`', async () => {
    const response = await post(
      t.app,
      BULK,
      { events: [{ email: 'ok2@multi-mx.test', event: 'delivered', at: '2026-13-01T00:00:00Z' }] },
      t.auth(),
    );
    assertError(response, 422, 'validation_failed', [{ field: 'events[0].at' }]);
  });

  it('a body over 1 MB: 413', async () => {
    const response = await post(
      t.app,
      FEEDBACK,
      { email: 'a@multi-mx.test', event: 'delivered', padding: 'x'.repeat(1_100_000) },
      t.auth(),
    );
    assertError(response, 413, 'payload_too_large');
  });

  it('no key: 401, before the body is looked at', async () => {
    const response = await post(t.app, FEEDBACK, { nonsense: true });
    assertError(response, 401, 'unauthorized');
  });
});

describe('feedback, the per-account cap', () => {
  let capped: TestApp;
  before(async () => {
    capped = await testApp({ rate: 1000, env: { ...UNPACED, MAILVET_FEEDBACK_MAX_EVENTS: '3' } });
  });
  after(() => capped?.close());

  it('refuses, whole and with 413, a request that would pass it; duplicates and other accounts still pass', async () => {
    const events = [1, 2].map((i) => ({
      email: `c${i}@multi-mx.test`,
      event: 'hard_bounce',
      at: '2026-10-01T00:00:00Z',
    }));
    assert.deepEqual((await post(capped.app, BULK, { events }, capped.auth())).json(), {
      recorded: 2,
      duplicates: 0,
    });
    const two = [3, 4].map((i) => ({ email: `c${i}@multi-mx.test`, event: 'hard_bounce' }));
    const refused = await post(capped.app, BULK, { events: two }, capped.auth());
    const body = assertError(refused, 413, 'storage_limit_reached');
    assert.match(String(body.message), /holds 2 feedback events.*past the 3/);
    assert.equal(await capped.store.feedback.countEvents(capped.keyRecord.accountId), 2);

    assert.deepEqual((await post(capped.app, BULK, { events }, capped.auth())).json(), {
      recorded: 0,
      duplicates: 2,
    });
    const last = await post(capped.app, FEEDBACK, two[0], capped.auth());
    assert.deepEqual(last.json(), { recorded: 1, duplicates: 0 });
    assertError(await post(capped.app, FEEDBACK, two[1], capped.auth()), 413, 'storage_limit_reached');

    // The cap is each account's own.
    const other = await capped.addKey({ rate: 1000 });
    const theirs = await post(capped.app, BULK, { events }, capped.auth(other.key));
    assert.deepEqual(theirs.json(), { recorded: 2, duplicates: 0 });
  });
});
