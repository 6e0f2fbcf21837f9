/**
 * Who may send feedback: the shared 401 cases of every /api/v1 route on both feedback routes, and
 * the dashboard's session (with its CSRF token and this Origin; without them 403), recording for
 * the session's own account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { authCases } from '../http/auth-cases.ts';
import { assertError } from '../http/expect.ts';
import { ORIGIN, signUp } from '../http/routes/v1/accounts/sessions.ts';

// These tests send feedback faster than an account's pace allows (the pace has its own test).
const UNPACED = { MAILVET_FEEDBACK_REQUESTS_PER_SECOND: '1000' };

describe('POST /api/v1/feedback without valid credentials', () => {
  authCases('/api/v1/feedback', { email: 'jane@multi-mx.test', event: 'delivered' });
});

describe('POST /api/v1/feedback/bulk without valid credentials', () => {
  authCases('/api/v1/feedback/bulk', { events: [{ email: 'jane@multi-mx.test', event: 'delivered' }] });
});

describe('feedback with a dashboard session', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ rate: 1000, env: UNPACED });
  });
  after(() => t?.close());

  test("records for the session's account, and needs the CSRF token", async () => {
    const browser = await signUp(t.app);
    const payload = { email: 'jane@multi-mx.test', event: 'hard_bounce', at: '2026-09-01T00:00:00Z' };
    const recorded = await browser.request({ method: 'POST', url: '/api/v1/feedback', payload });
    assert.equal(recorded.statusCode, 200, recorded.body);
    assert.deepEqual(recorded.json(), { recorded: 1, duplicates: 0 });
    assert.equal(await t.store.feedback.countEvents(browser.accountId), 1);
    assert.equal(await t.store.feedback.countEvents(t.keyRecord.accountId), 0);

    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/v1/feedback',
      headers: { cookie: browser.cookie, origin: ORIGIN },
      payload: { ...payload, at: '2026-09-02T00:00:00Z' },
    });
    assertError(forged, 403, 'forbidden');
    assert.equal(await t.store.feedback.countEvents(browser.accountId), 1);
  });
});
