/**
 * GET /api/v1/account and GET /api/v1/usage, with a key and with a session: the
 * account's plan and figures, this month's usage, daily figures by status and per key (the
 * dashboard's own use too), range checks, and nothing of another account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../../../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../../../../helpers/app.ts';
import { assertError } from '../../../expect.ts';
import { type Browser, signUp } from './sessions.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

describe('account and usage', () => {
  let t: TestApp;
  let browser: Browser;
  let apiKey: { id: string; key: string; prefix: string };
  before(async () => {
    t = await testApp({ plans: PLANS });
    browser = await signUp(t.app);
    apiKey = (
      await browser.request({
        method: 'POST',
        url: '/api/v1/keys',
        payload: { name: 'server', monthly_cap: 500 },
      })
    ).json();
  });
  after(async () => t?.close());

  const bearer = () => ({ authorization: `Bearer ${apiKey.key}` });

  test("the account with a session: plan, figures and this month's usage", async () => {
    const response = await browser.request({ method: 'GET', url: '/api/v1/account' });
    assert.equal(response.statusCode, 200);
    const account = response.json();
    assert.equal(account.id, browser.accountId);
    assert.equal(account.plan, 'free');
    assert.deepEqual(account.limits, {
      monthly_verifications: 1000,
      monthly_bulk_requests: 10,
      rate_limit_per_second: 1000,
      max_running_lists: 1,
      max_stored_rows: 100_000,
      max_unfinished_lists: 3,
      retention_days: 30,
    });
    assert.equal(account.key, null);
    assert.match(account.usage.reset_at, /^\d{4}-\d{2}-01T00:00:00.000Z$/);
  });

  test('usage moves with the API and the dashboard; with a key, the account shows the key and its remainder', async () => {
    for (const email of ['a@multi-mx.test', 'b@nowhere.test', 'not an address']) {
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/v1/verify', headers: bearer(), payload: { email } }))
          .statusCode,
        200,
      );
    }
    const bulk = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      headers: bearer(),
      payload: { emails: ['c@multi-mx.test', 'd@multi-mx.test'] },
    });
    assert.equal(bulk.statusCode, 200);
    const fromDashboard = await browser.request({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { email: 'e@multi-mx.test' },
    });
    assert.equal(fromDashboard.statusCode, 200);

    const withKey = (await t.app.inject({ method: 'GET', url: '/api/v1/account', headers: bearer() })).json();
    assert.equal(withKey.usage.verifications, 6);
    assert.equal(withKey.usage.bulk_requests, 1);
    assert.equal(withKey.usage.remaining, 500 - 5, "the key's cap leaves less than the account");
    assert.deepEqual(
      [withKey.key.id, withKey.key.monthly_cap, withKey.key.usage.verifications],
      [apiKey.id, 500, 5],
    );
    const withSession = (await browser.request({ method: 'GET', url: '/api/v1/account' })).json();
    assert.equal(withSession.usage.remaining, 1000 - 6);

    await t.flushDaily();
    const usage = (await browser.request({ method: 'GET', url: '/api/v1/usage' })).json();
    assert.equal(usage.days.length, 30);
    const today = usage.days.at(-1);
    assert.equal(today.date, new Date().toISOString().slice(0, 10));
    assert.equal(today.total, 6);
    assert.equal(today.verifications.INVALID_SYNTAX, 1);
    assert.equal(today.verifications.INVALID_DOMAIN, 1);
    assert.equal(today.verifications.PROBABLY_VALID, 4);
    assert.equal(today.bulk_requests, 1);
    const byKey = Object.fromEntries(
      usage.keys.map((key: { name: string; verifications: number }) => [key.name, key.verifications]),
    );
    assert.deepEqual(byKey, { server: 5, Dashboard: 1 });
    assert.ok(
      usage.keys.some((key: { id: string | null }) => key.id === null),
      "the dashboard's use has no key id",
    );
    assert.ok(usage.days.slice(0, -1).every((day: { total: number }) => day.total === 0));
  });

  test('usage ranges: explicit days, and 422 for a reversed, too long or unreal range', async () => {
    const ranged = await browser.request({
      method: 'GET',
      url: '/api/v1/usage?from=2026-01-01&to=2026-01-03',
    });
    assert.equal(ranged.statusCode, 200);
    assert.deepEqual(
      ranged.json().days.map((day: { date: string }) => day.date),
      ['2026-01-01', '2026-01-02', '2026-01-03'],
    );
    const refused: Array<[string, string]> = [
      ['from=2026-02-01&to=2026-01-01', 'from'],
      ['from=2024-01-01&to=2026-01-01', 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=2026-01-01&to=2026-13-01', 'to'],
      ['from=yesterday', 'from'],
    ];
    for (const [query, field] of refused) {
      assertError(
        await browser.request({ method: 'GET', url: `/api/v1/usage?${query}` }),
        422,
        'validation_failed',
        [{ field }],
      );
    }
  });

  test("another account sees none of this account's usage, keys or lists", async () => {
    const list = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lists',
      headers: bearer(),
      payload: { emails: ['x@multi-mx.test'] },
    });
    assert.equal(list.statusCode, 202);
    const listId = list.json().id;
    const mine = await browser.request({ method: 'GET', url: `/api/v1/lists/${listId}` });
    assert.equal(mine.statusCode, 200, 'the session sees the lists its keys made');

    const stranger = await signUp(t.app);
    assertError(await stranger.request({ method: 'GET', url: `/api/v1/lists/${listId}` }), 404, 'not_found');
    assertError(
      await stranger.request({ method: 'DELETE', url: `/api/v1/lists/${listId}` }),
      404,
      'not_found',
    );
    assertError(
      await stranger.request({ method: 'GET', url: `/api/v1/lists/${listId}/results` }),
      404,
      'not_found',
    );
    const theirs = (await stranger.request({ method: 'GET', url: '/api/v1/lists' })).json();
    assert.deepEqual(theirs.lists, []);
    await t.flushDaily();
    const usage = (await stranger.request({ method: 'GET', url: '/api/v1/usage' })).json();
    assert.deepEqual(usage.keys, []);
    assert.ok(usage.days.every((day: { total: number }) => day.total === 0));
    assert.equal(
      (await stranger.request({ method: 'GET', url: '/api/v1/account' })).json().usage.verifications,
      0,
    );
  });
});
