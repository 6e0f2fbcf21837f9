/**
 * Schedules through the API, over the real app on SQLite with Mailchimp emulated:
 * create (defaults filled, the audience checked with Mailchimp, the next slot in the schedule's
 * time zone), list, show, change (the next slot counted again; paused: none), remove; a bad cron
 * expression or time zone is 422 on its field; another account's integration or schedule is 404;
 * past the cap per integration, 409; disconnecting removes the schedules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_SCHEDULES_PER_INTEGRATION } from '../../src/integrations/schedules/schedule-service.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let t: TestApp;
let shop: EmulatedAccount;
let newsletter: EmulatedAudience;
let integrationId: string;
/** The service's clock: a winter day (Paris is UTC+1). */
let clock = new Date('2026-01-15T12:00:00.000Z');

before(async () => {
  emulator = await startMailchimpEmulator();
  t = await testApp({
    rate: 1000,
    now: () => clock,
    env: { MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, '') },
  });
  shop = emulator.addAccount({ name: 'Scheduled Shop' });
  newsletter = emulator.addAudience(shop, { name: 'Newsletter' });
  integrationId = (await connect(shop.apiKey)).json().id;
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, url: string, payload?: unknown, key = t.key) =>
  t.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers: t.auth(key),
    ...(payload !== undefined && { payload: payload as object }),
  });

const connect = (apiKey: string, key = t.key) =>
  api('POST', '/integrations', { provider: 'mailchimp', api_key: apiKey }, key);

const schedulesOf = (id: string) => `/integrations/${id}/schedules`;

describe('creating, reading, changing and removing', () => {
  test('creates with defaults filled; the next slot is the expression read in its time zone', async () => {
    const created = await api('POST', schedulesOf(integrationId), {
      audience_id: newsletter.id,
      cron: ' 0 3  * * * ',
      timezone: 'Europe/Paris',
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.id, /^sch_/);
    assert.deepEqual(
      { ...body, id: undefined },
      {
        id: undefined,
        integration_id: integrationId,
        audience_id: newsletter.id,
        cron: '0 3 * * *',
        timezone: 'Europe/Paris',
        scope: 'all',
        stale_days: 90,
        statuses: ['subscribed'],
        write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
        paused: false,
        // 03:00 in Paris in January is 02:00 UTC, the next morning.
        next_run_at: '2026-01-16T02:00:00.000Z',
        last_run_at: null,
        last_run_id: null,
        last_error: null,
        created_at: clock.toISOString(),
      },
    );
    assert.deepEqual((await api('GET', `${schedulesOf(integrationId)}/${body.id}`)).json(), body);
    assert.ok(
      (await api('GET', schedulesOf(integrationId)))
        .json()
        .schedules.some((each: { id: string }) => each.id === body.id),
    );
  });

  test('keeps the run choices given, a dry run included', async () => {
    const created = await api('POST', schedulesOf(integrationId), {
      audience_id: newsletter.id,
      cron: '30 6 * * 1',
      timezone: 'UTC',
      scope: 'stale',
      stale_days: 30,
      statuses: ['subscribed', 'pending'],
      write_back: null,
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.deepEqual(
      [body.scope, body.stale_days, body.statuses, body.write_back],
      ['stale', 30, ['subscribed', 'pending'], null],
    );
    // 2026-01-15 is a Thursday: the next Monday is the 19th.
    assert.equal(body.next_run_at, '2026-01-19T06:30:00.000Z');
  });

  test('a change of time zone or expression counts the next slot again; pausing clears it, resuming counts from now', async () => {
    const id = (
      await api('POST', schedulesOf(integrationId), {
        audience_id: newsletter.id,
        cron: '0 3 * * *',
        timezone: 'Europe/Paris',
      })
    ).json().id;
    const url = `${schedulesOf(integrationId)}/${id}`;

    const moved = await api('PATCH', url, { timezone: 'America/New_York' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().next_run_at, '2026-01-16T08:00:00.000Z', '03:00 in New York in winter');

    const choices = await api('PATCH', url, {
      scope: 'changed',
      statuses: ['cleaned'],
      write_back: { segments: false, unsubscribe_invalid: true },
    });
    assert.equal(choices.statusCode, 200, choices.body);
    assert.deepEqual(
      [choices.json().scope, choices.json().statuses, choices.json().write_back, choices.json().next_run_at],
      [
        'changed',
        ['cleaned'],
        { fields: true, tags: true, segments: false, unsubscribe_invalid: true },
        '2026-01-16T08:00:00.000Z',
      ],
    );

    const paused = await api('PATCH', url, { paused: true });
    assert.deepEqual([paused.json().paused, paused.json().next_run_at], [true, null]);
    assert.equal((await api('GET', url)).json().next_run_at, null);

    clock = new Date('2026-07-01T12:00:00.000Z');
    const resumed = await api('PATCH', url, { paused: false, timezone: 'Europe/Paris' });
    assert.deepEqual(
      [resumed.json().paused, resumed.json().next_run_at],
      [false, '2026-07-02T01:00:00.000Z'],
      'from the new now, in summer time (UTC+2)',
    );
    const hourly = await api('PATCH', url, { cron: '@hourly' });
    assert.deepEqual(
      [hourly.json().cron, hourly.json().next_run_at],
      ['@hourly', '2026-07-01T13:00:00.000Z'],
    );
  });

  test('removes a schedule: 204, then 404', async () => {
    const id = (
      await api('POST', schedulesOf(integrationId), { audience_id: newsletter.id, cron: '0 0 1 * *' })
    ).json().id;
    const url = `${schedulesOf(integrationId)}/${id}`;
    assert.equal((await api('DELETE', url)).statusCode, 204);
    assert.equal((await api('GET', url)).statusCode, 404);
    assert.equal((await api('DELETE', url)).statusCode, 404);
    assert.ok(
      !(await api('GET', schedulesOf(integrationId)))
        .json()
        .schedules.some((each: { id: string }) => each.id === id),
    );
  });
});

describe('refusals', () => {
  const fieldsOf = (response: { json(): { errors: Array<{ field: string }> } }) =>
    response.json().errors.map((error) => error.field);

  test('a bad cron expression is 422 on cron; an unknown time zone, 422 on timezone', async () => {
    for (const cron of [
      '61 * * * *',
      '* * * * * *',
      'every day',
      '0 0 30 2 *',
      '@fortnightly',
      '0 3 * * 8',
    ]) {
      const response = await api('POST', schedulesOf(integrationId), { audience_id: newsletter.id, cron });
      assert.equal(response.statusCode, 422, cron);
      assert.equal(response.json().code, 'validation_failed');
      assert.deepEqual(fieldsOf(response), ['cron'], cron);
    }
    for (const timezone of ['Mars/Olympus', '+01:00', 'Paris']) {
      const response = await api('POST', schedulesOf(integrationId), {
        audience_id: newsletter.id,
        cron: '0 3 * * *',
        timezone,
      });
      assert.equal(response.statusCode, 422, timezone);
      assert.deepEqual(fieldsOf(response), ['timezone'], timezone);
      assert.match(response.json().errors[0].message, /IANA/);
    }
  });

  test('a body of the wrong shape is 422 on its field; an unknown audience, 422 on audience_id', async () => {
    const cases: Array<[unknown, string]> = [
      [{ audience_id: newsletter.id }, 'cron'],
      [{ cron: '0 3 * * *' }, 'audience_id'],
      [{ audience_id: newsletter.id, cron: '0 3 * * *', scope: 'sometimes' }, 'scope'],
      [{ audience_id: newsletter.id, cron: '0 3 * * *', statuses: [] }, 'statuses'],
      [{ audience_id: newsletter.id, cron: '0 3 * * *', stale_days: 0 }, 'stale_days'],
      [{ audience_id: newsletter.id, cron: 3 }, 'cron'],
    ];
    for (const [body, field] of cases) {
      const response = await api('POST', schedulesOf(integrationId), body);
      assert.equal(response.statusCode, 422, JSON.stringify(body));
      assert.deepEqual(fieldsOf(response), [field], JSON.stringify(body));
    }
    const unknown = await api('POST', schedulesOf(integrationId), { audience_id: 'nope', cron: '0 3 * * *' });
    assert.equal(unknown.statusCode, 422);
    assert.deepEqual(fieldsOf(unknown), ['audience_id']);
  });

  test('a bad change is 422 and changes nothing', async () => {
    const created = (
      await api('POST', schedulesOf(integrationId), { audience_id: newsletter.id, cron: '0 4 * * *' })
    ).json();
    const url = `${schedulesOf(integrationId)}/${created.id}`;
    const badCron = await api('PATCH', url, { cron: '0 25 * * *' });
    assert.equal(badCron.statusCode, 422);
    assert.deepEqual(fieldsOf(badCron), ['cron']);
    const badZone = await api('PATCH', url, { timezone: 'Europe/Atlantis', paused: true });
    assert.deepEqual(fieldsOf(badZone), ['timezone']);
    assert.equal((await api('PATCH', url, {})).statusCode, 422, 'an empty change');
    assert.equal((await api('PATCH', url, { audience_id: 'other' })).statusCode, 422, 'the audience stays');
    assert.deepEqual((await api('GET', url)).json(), created);
  });

  test("another account's integration or schedule is 404 everywhere, and is left as it was", async () => {
    const created = (
      await api('POST', schedulesOf(integrationId), { audience_id: newsletter.id, cron: '0 5 * * *' })
    ).json();
    const url = `${schedulesOf(integrationId)}/${created.id}`;
    const stranger = await t.addKey({ rate: 1000 });
    const theirs = (await connect(shop.apiKey, stranger.key)).json().id;
    for (const [method, path, body] of [
      ['GET', schedulesOf(integrationId), undefined],
      ['POST', schedulesOf(integrationId), { audience_id: newsletter.id, cron: '0 3 * * *' }],
      ['GET', url, undefined],
      ['PATCH', url, { paused: true }],
      ['DELETE', url, undefined],
      // Their own integration, our schedule's id.
      ['GET', `${schedulesOf(theirs)}/${created.id}`, undefined],
      ['PATCH', `${schedulesOf(theirs)}/${created.id}`, { paused: true }],
      ['DELETE', `${schedulesOf(theirs)}/${created.id}`, undefined],
    ] as const) {
      const response = await api(method, path, body, stranger.key);
      assert.equal(response.statusCode, 404, `${method} ${path}`);
      assert.equal(response.json().code, 'not_found');
    }
    assert.deepEqual((await api('GET', url)).json(), created);
    assert.equal((await api('GET', `${schedulesOf(integrationId)}/sch_unknown`)).statusCode, 404);
  });

  test(`past ${MAX_SCHEDULES_PER_INTEGRATION} schedules on one integration, 409 conflict`, async () => {
    const other = emulator.addAccount({ name: 'Busy Shop' });
    const audience = emulator.addAudience(other, { name: 'All' });
    const id = (await connect(other.apiKey)).json().id;
    for (let i = 0; i < MAX_SCHEDULES_PER_INTEGRATION; i++) {
      const response = await api('POST', schedulesOf(id), { audience_id: audience.id, cron: `${i} 3 * * *` });
      assert.equal(response.statusCode, 201, response.body);
    }
    const past = await api('POST', schedulesOf(id), { audience_id: audience.id, cron: '59 3 * * *' });
    assert.equal(past.statusCode, 409);
    assert.equal(past.json().code, 'conflict');
    assert.match(past.json().message, new RegExp(`${MAX_SCHEDULES_PER_INTEGRATION} schedules`));
    assert.equal((await api('GET', schedulesOf(id))).json().schedules.length, MAX_SCHEDULES_PER_INTEGRATION);
  });

  test('a disconnected integration is 409 integration_disconnected', async () => {
    const revoked = emulator.addAccount({ name: 'Revoked Shop' });
    const audience = emulator.addAudience(revoked, { name: 'All' });
    const id = (await connect(revoked.apiKey)).json().id;
    emulator.revokeKey(revoked);
    const response = await api('POST', schedulesOf(id), { audience_id: audience.id, cron: '0 3 * * *' });
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().code, 'integration_disconnected');
  });
});

test("disconnecting removes the integration's schedules", async () => {
  const other = emulator.addAccount({ name: 'Leaving Shop' });
  const audience = emulator.addAudience(other, { name: 'All' });
  const id = (await connect(other.apiKey)).json().id;
  const scheduleId = (
    await api('POST', schedulesOf(id), { audience_id: audience.id, cron: '0 3 * * *' })
  ).json().id;
  assert.equal((await api('DELETE', `/integrations/${id}`)).statusCode, 204);
  assert.equal((await api('GET', schedulesOf(id))).statusCode, 404);
  assert.equal(await t.store.schedules.findSchedule(t.keyRecord.accountId, id, scheduleId), null);
});
