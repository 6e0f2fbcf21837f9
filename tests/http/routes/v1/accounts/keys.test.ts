/**
 * API keys made in the dashboard, and the account-level quota and rate they share:
 * keys of one account draw on one quota, a key's own caps hold it below the account's, the quota
 * headers show what is left for that key, revoking works at once, and another account's keys are
 * a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../../../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../../../../helpers/app.ts';
import { assertError } from '../../../expect.ts';
import { type Browser, signUp } from './sessions.ts';

// The free plan with a rate that the many requests of these tests do not reach.
const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

describe('API keys', () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    t = await testApp({ plans: PLANS });
    browser = await signUp(t.app);
  });
  after(async () => t?.close());

  const verify = (key: string, email = 'jane@multi-mx.test') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { authorization: `Bearer ${key}` },
      payload: { email },
    });
  const createKey = async (body: Record<string, unknown>, as = browser) => {
    const response = await as.request({ method: 'POST', url: '/api/v1/keys', payload: body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; key: string; prefix: string };
  };

  test('a key is shown once at creation, listed by prefix afterwards, and works on the API', async () => {
    const created = await createKey({ name: 'CRM sync' });
    assert.match(created.key, /^mv_live_[A-Za-z0-9_-]{43}$/);
    assert.ok(created.key.startsWith(created.prefix));
    const verified = await verify(created.key);
    assert.equal(verified.statusCode, 200);
    const listed = await browser.request({ method: 'GET', url: '/api/v1/keys' });
    assert.equal(listed.statusCode, 200);
    const mine = listed.json().keys.find((key: { id: string }) => key.id === created.id);
    assert.deepEqual(
      [mine.name, mine.prefix, mine.revoked_at, mine.rate_limit, mine.monthly_cap, mine.usage.verifications],
      ['CRM sync', created.prefix, null, null, null, 1],
    );
    assert.match(mine.last_used_at, /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(!listed.body.includes(created.key), 'the key itself is never shown again');
    assert.ok(!JSON.stringify(listed.json()).includes('Dashboard'), "the dashboard's own key is not listed");
  });

  test('a key capped below its account is held to its cap; the headers show the smaller remainder', async () => {
    const capped = await createKey({ name: 'capped', monthly_cap: 2 });
    const first = await verify(capped.key, 'a@multi-mx.test');
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-quota-limit'], '2');
    assert.equal(first.headers['x-quota-remaining'], '1');
    assert.equal((await verify(capped.key, 'b@multi-mx.test')).statusCode, 200);
    const refused = await verify(capped.key, 'c@multi-mx.test');
    assertError(refused, 429, 'quota_exceeded');
    assert.equal(refused.headers['x-quota-remaining'], '0');
    // Another key of the same account still draws on the account's quota.
    const open = await createKey({ name: 'open' });
    const other = await verify(open.key, 'd@multi-mx.test');
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['x-quota-limit'], '1000');
  });

  test("a key's own rate limit refuses it while the account's other keys go on", async () => {
    const slow = await createKey({ name: 'slow', rate_limit: 1 });
    const fast = await createKey({ name: 'fast' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await verify(slow.key, `r${i}@multi-mx.test`)).statusCode);
    assert.deepEqual(statuses.slice(0, 2), [200, 200], 'a burst of twice the rate');
    assert.ok(statuses.slice(2).includes(429));
    const response = await verify(fast.key, 'f@multi-mx.test');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['ratelimit-limit'], '1000', "the account's rate");
  });

  test('caps above the account are refused; PATCH changes and clears caps; other accounts get 404', async () => {
    const key = await createKey({ name: 'patched' });
    const tooMuch = await browser.request({
      method: 'PATCH',
      url: `/api/v1/keys/${key.id}`,
      payload: { monthly_cap: 1_000_000, rate_limit: 5000 },
    });
    assertError(tooMuch, 422, 'validation_failed', [{ field: 'rate_limit' }, { field: 'monthly_cap' }]);
    const patched = await browser.request({
      method: 'PATCH',
      url: `/api/v1/keys/${key.id}`,
      payload: { name: 'renamed', rate_limit: 2 },
    });
    assert.equal(patched.statusCode, 200);
    assert.deepEqual([patched.json().name, patched.json().rate_limit], ['renamed', 2]);
    const cleared = await browser.request({
      method: 'PATCH',
      url: `/api/v1/keys/${key.id}`,
      payload: { rate_limit: null },
    });
    assert.equal(cleared.json().rate_limit, null);

    const stranger = await signUp(t.app);
    assertError(
      await stranger.request({ method: 'PATCH', url: `/api/v1/keys/${key.id}`, payload: { name: 'x' } }),
      404,
      'not_found',
    );
    assertError(
      await stranger.request({ method: 'DELETE', url: `/api/v1/keys/${key.id}` }),
      404,
      'not_found',
    );
    assert.ok(!(await stranger.request({ method: 'GET', url: '/api/v1/keys' })).body.includes(key.id));
    assertError(
      await browser.request({ method: 'DELETE', url: '/api/v1/keys/no-such-key' }),
      404,
      'not_found',
    );
    assert.equal((await verify(key.key)).statusCode, 200, "the stranger's attempts changed nothing");
  });

  test('a revoked key is refused at once', async () => {
    const key = await createKey({ name: 'to revoke' });
    assert.equal((await verify(key.key)).statusCode, 200);
    const revoked = await browser.request({ method: 'DELETE', url: `/api/v1/keys/${key.id}` });
    assert.equal(revoked.statusCode, 204);
    assertError(await verify(key.key), 401, 'unauthorized');
    const listed = (await browser.request({ method: 'GET', url: '/api/v1/keys' })).json();
    assert.match(listed.keys.find((one: { id: string }) => one.id === key.id).revoked_at, /^\d{4}-/);
  });

  test('keys cannot manage keys, and key routes validate their bodies', async () => {
    const key = await createKey({ name: 'bearer' });
    const withKey = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${key.key}` },
      payload: { name: 'x' },
    });
    assertError(withKey, 403, 'forbidden');
    for (const payload of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'x', rate_limit: 0 },
      { name: 'x', monthly_cap: -1 },
      { name: 'x', rate_limit: '5' },
    ]) {
      const response = await browser.request({ method: 'POST', url: '/api/v1/keys', payload });
      assertError(response, 422, 'validation_failed', response.json().errors);
    }
  });
});

describe('account quota shared by keys', () => {
  test('two keys of one account draw on one quota; the account and each key count their use', async () => {
    const t = await testApp({ quota: 3, rate: 1000 });
    try {
      const second = await t.addKey({ accountId: t.keyRecord.accountId, name: 'second' });
      const verify = (key: string, email: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/verify', headers: t.auth(key), payload: { email } });
      assert.equal((await verify(t.key, 'a@multi-mx.test')).headers['x-quota-remaining'], '2');
      assert.equal((await verify(second.key, 'b@multi-mx.test')).headers['x-quota-remaining'], '1');
      assert.equal((await verify(t.key, 'c@multi-mx.test')).statusCode, 200);
      assertError(await verify(second.key, 'd@multi-mx.test'), 429, 'quota_exceeded');
      assert.deepEqual(await t.accountUsage(), { verifications: 3, bulkRequests: 0 });
      assert.deepEqual(await t.usage(), { verifications: 2, bulkRequests: 0 });
      assert.deepEqual(await t.usage(second.record.id), { verifications: 1, bulkRequests: 0 });
    } finally {
      await t.close();
    }
  });
});
