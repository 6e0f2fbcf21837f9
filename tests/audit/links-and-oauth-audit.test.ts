/**
 * The audited changes made outside a signed-in request: following the emailed links (the address
 * confirmed, the password reset, through a real SMTP sink on loopback), and connecting a platform
 * by OAuth in the browser (a made-up platform's consent flow). Each is one entry of the user's
 * account, the user as the actor, from the client's address.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { signUp } from '../http/routes/v1/accounts/sessions.ts';
import { AcmePlatform } from '../integrations/acme-platform.ts';
import { linkIn, type MailSink, startMailSink } from '../mailworld/mail-sink.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

let sink: MailSink;
let t: TestApp;
const acme = new AcmePlatform();

before(async () => {
  sink = await startMailSink();
  t = await testApp({
    plans: PLANS,
    env: { MAILVET_MAIL_URL: sink.url, MAILVET_MAIL_FROM: 'Mailvet <no-reply@mailvet.test>' },
    moreProviders: [acme],
  });
});
after(async () => {
  await t?.close();
  await sink?.close();
});

const post = (url: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, remoteAddress: '198.51.100.4' });

test('a confirmed address, a reset password and an OAuth connection are entries of the account', async () => {
  const browser = await signUp(t.app);
  const user = (await t.store.users.findUserByEmail(browser.email))!;

  const confirmation = await sink.next((m) => m.to.includes(browser.email));
  const confirmToken = linkIn(confirmation, '/confirm').searchParams.get('token');
  assert.equal((await post('/session/confirm', { token: confirmToken })).statusCode, 204);

  assert.equal((await post('/session/password-reset', { email: browser.email })).statusCode, 202);
  const reset = await sink.next((m) => m.to.includes(browser.email) && /Reset/.test(m.subject));
  const resetToken = linkIn(reset, '/reset-password').searchParams.get('token');
  const set = await post('/session/password-reset/confirm', {
    token: resetToken,
    password: 'a new long password',
  });
  assert.equal(set.statusCode, 204);

  // The reset ended every session: sign in again, then connect by OAuth.
  const signedIn = await t.app.inject({
    method: 'POST',
    url: '/api/v1/session',
    payload: { email: browser.email, password: 'a new long password' },
  });
  assert.equal(signedIn.statusCode, 200);
  const cookie = String(
    [signedIn.headers['set-cookie']].flat().find((line) => line?.startsWith('mailvet_session=')),
  ).split(';')[0]!;
  const started = await t.app.inject({
    method: 'GET',
    url: '/integrations/acme/connect',
    headers: { cookie },
  });
  const state = new URL(String(started.headers.location)).searchParams.get('state')!;
  const { list } = acme.addAccount('By OAuth', [{ email: 'alice@accept.test' }]);
  const back = await t.app.inject({
    method: 'GET',
    url: `/integrations/acme/callback?code=${acme.issueCode(list)}&state=${encodeURIComponent(state)}`,
    headers: { cookie },
    remoteAddress: '198.51.100.9',
  });
  const connected = new URL(String(back.headers.location), 'http://localhost').searchParams.get('connected');
  assert.ok(connected !== null, String(back.headers.location));

  const log = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=4', headers: { cookie } });
  assert.equal(log.statusCode, 200, log.body);
  const actor = { type: 'user', id: user.id, label: browser.email };
  assert.deepEqual(
    (log.json().entries as Array<Record<string, unknown>>)
      .reverse()
      .map(({ action, actor, ip, target, details }) => ({ action, actor, ip, target, details })),
    [
      {
        action: 'user.email_confirmed',
        actor,
        ip: '198.51.100.4',
        target: { type: 'user', id: user.id },
        details: {},
      },
      {
        action: 'user.password_reset',
        actor,
        ip: '198.51.100.4',
        target: { type: 'user', id: user.id },
        details: {},
      },
      {
        action: 'user.signed_in',
        actor,
        ip: '127.0.0.1',
        target: { type: 'user', id: user.id },
        details: {},
      },
      {
        action: 'integration.connected',
        actor,
        ip: '198.51.100.9',
        target: { type: 'integration', id: connected },
        details: { provider: 'acme', account_name: 'Acme account of By OAuth', with: 'oauth' },
      },
    ],
  );
});
