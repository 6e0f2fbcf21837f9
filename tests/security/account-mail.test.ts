/**
 * Free quota minted by signing up again and again: with a mail relay (a real SMTP sink on
 * loopback), a sign-up is signed in at once but verifies nothing until it follows the link sent to
 * its address; the password-reset link goes out the same way, answers the same whether or not the
 * address has a user, works once and for an hour, and ends every session. Without a relay nothing
 * changes. Tokens and the relay's password never reach the logs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError } from '../http/expect.ts';
import { LogCapture } from '../http/log-capture.ts';
import { type Browser, ORIGIN, PASSWORD, signIn, signUp } from '../http/routes/v1/accounts/sessions.ts';
import { linkIn, type MailSink, startMailSink } from '../mailworld/mail-sink.ts';

const FROM = 'Mailvet <no-reply@mailvet.test>';

/** The env of an app whose account mail goes to `sink`. */
function relayEnv(sink: MailSink): Record<string, string> {
  return { MAILVET_MAIL_URL: sink.url, MAILVET_MAIL_FROM: FROM };
}

/** Every request a verification can come by, and the key that would let one around the refusal. */
const ACTIONS = [
  { name: 'POST /verify', method: 'POST', url: '/api/v1/verify', payload: { email: 'someone@example.com' } },
  {
    name: 'POST /verify/bulk',
    method: 'POST',
    url: '/api/v1/verify/bulk',
    payload: { emails: ['a@example.com'] },
  },
  {
    name: 'a list upload',
    method: 'POST',
    url: '/api/v1/lists?name=x',
    payload: 'email\na@example.com\n',
    headers: { 'content-type': 'text/csv' },
  },
  {
    name: 'a domain check',
    method: 'POST',
    url: '/api/v1/domains/check',
    payload: { domain: 'example.com' },
  },
  {
    name: 'an integration run',
    method: 'POST',
    url: '/api/v1/integrations/int_x/runs',
    payload: { audience_id: 'a' },
  },
  { name: 'a new API key', method: 'POST', url: '/api/v1/keys', payload: { name: 'around it' } },
] as const;

async function refusedEverything(browser: Browser): Promise<void> {
  for (const action of ACTIONS) {
    const response = await browser.request({
      method: action.method,
      url: action.url,
      payload: action.payload,
      ...('headers' in action && { headers: action.headers }),
    });
    assertError(response, 403, 'account_unconfirmed');
    assert.match(response.json().message, /Confirm your email address/, action.name);
  }
}

const session = (browser: Browser) => browser.request({ method: 'GET', url: '/api/v1/session' });
const verify = (browser: Browser) =>
  browser.request({ method: 'POST', url: '/api/v1/verify', payload: { email: 'someone@example.com' } });

describe('address confirmation through a relay', () => {
  let sink: MailSink;
  let t: TestApp;
  before(async () => {
    sink = await startMailSink();
    t = await testApp({ env: relayEnv(sink) });
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  test('a sign-up is signed in but verifies nothing, makes no key, until it follows the emailed link', async () => {
    const browser = await signUp(t.app);
    assert.equal((await session(browser)).json().user.awaiting_confirmation, true);
    await refusedEverything(browser);

    const message = await sink.next((m) => m.to.includes(browser.email));
    assert.equal(message.headers.from, FROM);
    assert.match(message.subject, /Confirm your email address/);
    const link = linkIn(message, '/confirm');
    assert.equal(link.origin, ORIGIN, 'the link opens the dashboard at MAILVET_PUBLIC_URL');
    const token = link.searchParams.get('token')!;
    // Only the hash is stored.
    assert.ok(!JSON.stringify(await t.store.users.findUserByEmail(browser.email)).includes(token));

    // The link works without the session (another device), once.
    const confirm = () =>
      t.app.inject({ method: 'POST', url: '/api/v1/session/confirm', payload: { token } });
    assert.equal((await confirm()).statusCode, 204);
    assertError(await confirm(), 422, 'validation_failed', [{ field: 'token' }]);

    assert.equal((await session(browser)).json().user.awaiting_confirmation, false);
    assert.equal((await verify(browser)).statusCode, 200);
    assert.equal(
      (await browser.request({ method: 'POST', url: '/api/v1/keys', payload: { name: 'now fine' } }))
        .statusCode,
      201,
    );
  });

  test('sign-out and a password change work before confirmation', async () => {
    const browser = await signUp(t.app);
    const change = await browser.request({
      method: 'POST',
      url: '/api/v1/account/password',
      payload: { current_password: PASSWORD, new_password: 'another long password' },
    });
    assert.equal(change.statusCode, 204);
    assert.equal((await browser.request({ method: 'DELETE', url: '/api/v1/session' })).statusCode, 204);
  });

  test('resending replaces the link, is throttled, and is refused once confirmed', async () => {
    const browser = await signUp(t.app);
    const first = linkIn(await sink.next((m) => m.to.includes(browser.email)), '/confirm');
    const resend = () => browser.request({ method: 'POST', url: '/api/v1/session/confirm/resend' });
    assert.equal((await resend()).statusCode, 202);
    const second = linkIn(
      await sink.next(
        (m) => m.to.includes(browser.email) && !m.text.includes(first.searchParams.get('token')!),
      ),
      '/confirm',
    );
    const confirm = (link: URL) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/session/confirm',
        payload: { token: link.searchParams.get('token') },
      });
    assertError(await confirm(first), 422, 'validation_failed', [{ field: 'token' }]);
    assert.equal((await resend()).statusCode, 202);
    assert.equal((await resend()).statusCode, 202);
    const spent = await resend();
    assertError(spent, 429, 'rate_limited');
    assert.ok(Number(spent.headers['retry-after']) >= 1);
    const latest = sink.messages.filter((m) => m.to.includes(browser.email)).at(-1)!;
    assert.equal((await confirm(linkIn(latest, '/confirm'))).statusCode, 204);
    assertError(await confirm(second), 422, 'validation_failed', [{ field: 'token' }]);
    assertError(await resend(), 409, 'conflict');
  });

  test('a malformed or unknown token is a 422 on the token, never a 500', async () => {
    for (const token of ['', 'x', 'A'.repeat(43), 'A'.repeat(200), '../../etc', '%00', 7]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session/confirm',
        payload: { token },
      });
      assertError(response, 422, 'validation_failed', [{ field: 'token' }]);
    }
  });

  test('users made as the CLI makes them, and every user of an earlier release, count as confirmed', async () => {
    const account = await t.store.createAccount({ name: 'By the operator', plan: 'free' });
    const email = `cli-${randomUUID()}@example.com`;
    await t.store.users.createUser({
      accountId: account.id,
      email,
      passwordHash: await hashPassword(PASSWORD),
    });
    const browser = await signIn(t.app, email);
    assert.equal((await session(browser)).json().user.awaiting_confirmation, false);
    assert.equal((await verify(browser)).statusCode, 200);
  });
});

describe('a confirmation link that expired', () => {
  let sink: MailSink;
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    sink = await startMailSink();
    t = await testApp({ env: relayEnv(sink), now: () => new Date(clock) });
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  test('works for 48 hours only', async () => {
    const browser = await signUp(t.app);
    const link = linkIn(await sink.next((m) => m.to.includes(browser.email)), '/confirm');
    clock += 48 * 3_600_000 + 1000;
    const late = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session/confirm',
      payload: { token: link.searchParams.get('token') },
    });
    assertError(late, 422, 'validation_failed', [{ field: 'token' }]);
  });
});

describe('password reset through a relay', () => {
  let sink: MailSink;
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    sink = await startMailSink({ held: false });
    t = await testApp({ env: relayEnv(sink), now: () => new Date(clock) });
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  const requestReset = (email: string, remoteAddress = '10.1.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/session/password-reset',
      remoteAddress,
      payload: { email },
    });
  const setPassword = (token: string | null, password: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/session/password-reset/confirm',
      payload: { token, password },
    });

  test('the emailed link sets a new password once, ends every session, and confirms the address', async () => {
    const browser = await signUp(t.app);
    const laptop = await signIn(t.app, browser.email);
    assert.equal((await requestReset(browser.email.toUpperCase())).statusCode, 202);
    const message = await sink.next((m) => m.to.includes(browser.email) && /Reset/.test(m.subject));
    const link = linkIn(message, '/reset-password');
    assert.equal(link.origin, ORIGIN);
    const token = link.searchParams.get('token');

    // A weak password is refused without using the link up.
    assertError(await setPassword(token, 'short'), 422, 'validation_failed', [{ field: 'password' }]);
    assert.equal((await setPassword(token, 'a new and long password')).statusCode, 204);
    assertError(await setPassword(token, 'yet another password'), 422, 'validation_failed', [
      { field: 'token' },
    ]);

    assertError(await session(browser), 401, 'unauthorized');
    assertError(await session(laptop), 401, 'unauthorized');
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.1.9.9',
      payload: { email: browser.email, password: PASSWORD },
    });
    assertError(old, 401, 'unauthorized');
    const again = await signIn(t.app, browser.email, 'a new and long password');
    assert.equal(
      (await session(again)).json().user.awaiting_confirmation,
      false,
      'the link proved the address',
    );
  });

  test('works for an hour only', async () => {
    const browser = await signUp(t.app);
    assert.equal((await requestReset(browser.email, '10.1.0.2')).statusCode, 202);
    const link = linkIn(
      await sink.next((m) => m.to.includes(browser.email) && /Reset/.test(m.subject)),
      '/reset-password',
    );
    clock += 3_600_000 + 1000;
    assertError(
      await setPassword(link.searchParams.get('token'), 'a new and long password'),
      422,
      'validation_failed',
      [{ field: 'token' }],
    );
  });

  test('throttled per address and per client', async () => {
    const browser = await signUp(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await requestReset(browser.email, `10.2.0.${i + 1}`)).statusCode);
    assert.deepEqual(statuses, [202, 202, 202, 429]);
    const sprayed: number[] = [];
    for (let i = 0; i < 11; i++)
      sprayed.push((await requestReset(`nobody-${i}-${randomUUID()}@example.com`, '10.3.0.1')).statusCode);
    assert.deepEqual(sprayed, [...Array(10).fill(202), 429]);
  });
});

describe('a reset request tells nothing about the address', () => {
  let sink: MailSink;
  let t: TestApp;
  before(async () => {
    // The relay holds every message until released: an answer that waited for it would never come.
    sink = await startMailSink({ held: true });
    t = await testApp({ env: relayEnv(sink) });
  });
  after(async () => {
    sink?.release();
    await t?.close();
    await sink?.close();
  });

  test('the same answer, before any mail is sent, whether or not a user has the address', async () => {
    const browser = await signUp(t.app);
    const ask = (email: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/session/password-reset', payload: { email } });
    const unknown = await ask(`nobody-${randomUUID()}@example.com`);
    const known = await ask(browser.email);
    for (const response of [unknown, known]) {
      assert.equal(response.statusCode, 202);
      assert.equal(response.body, '');
    }
    const shape = (response: typeof known) =>
      Object.keys(response.headers)
        .filter((name) => name !== 'date')
        .sort();
    assert.deepEqual(shape(known), shape(unknown));
    // Both answered while the relay holds the sign-up's confirmation and the reset link.
    sink.release();
    // Two connections: the reset link may be accepted before the confirmation's DATA has arrived.
    await sink.next((m) => m.to.includes(browser.email) && /Confirm/.test(m.subject));
    await sink.next((m) => m.to.includes(browser.email) && /Reset/.test(m.subject));
    assert.deepEqual(
      sink.messages.flatMap((m) => m.to),
      [browser.email, browser.email],
      'the confirmation and the reset link, and nothing for the unknown address',
    );
  });
});

describe('without a relay', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t?.close());

  test('sign-ups are confirmed at once, and the link routes are 404s that say why', async () => {
    const browser = await signUp(t.app);
    assert.equal((await session(browser)).json().user.awaiting_confirmation, false);
    assert.equal((await verify(browser)).statusCode, 200);
    const settings = await t.app.inject({ method: 'GET', url: '/api/v1/session/settings' });
    assert.deepEqual(settings.json(), { signup: 'open', password_reset: false });
    for (const [url, payload] of [
      ['/api/v1/session/password-reset', { email: browser.email }],
      ['/api/v1/session/password-reset/confirm', { token: 'A'.repeat(43), password: 'a long new password' }],
      ['/api/v1/session/confirm', { token: 'A'.repeat(43) }],
    ] as const) {
      const response = await t.app.inject({ method: 'POST', url, payload });
      assertError(response, 404, 'not_found');
      assert.match(response.json().message, /sends no email/);
    }
    assertError(
      await browser.request({ method: 'POST', url: '/api/v1/session/confirm/resend' }),
      404,
      'not_found',
    );
  });
});

describe('account mail secrets in logs', () => {
  test("links' tokens and the relay's password never reach the logs, even when the relay refuses", async () => {
    const relayPassword = `relay-${randomUUID()}`;
    const sink = await startMailSink({ auth: { user: 'mailvet', password: relayPassword } });
    const refusing = await startMailSink({ auth: { user: 'mailvet', password: 'not the configured one' } });
    const logs = new LogCapture();
    const refusedLogs = new LogCapture();
    const t = await testApp({ env: relayEnv(sink), logger: { level: 'trace', stream: logs } });
    const broken = await testApp({
      env: {
        ...relayEnv(refusing),
        MAILVET_MAIL_URL: refusing.url.replace('not%20the%20configured%20one', relayPassword),
      },
      logger: { level: 'trace', stream: refusedLogs },
    });
    try {
      const browser = await signUp(t.app);
      const confirmLink = linkIn(await sink.next((m) => m.to.includes(browser.email)), '/confirm');
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/session/confirm',
        payload: { token: confirmLink.searchParams.get('token') },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/session/password-reset',
        payload: { email: browser.email },
      });
      const resetLink = linkIn(await sink.next((m) => /Reset/.test(m.subject)), '/reset-password');
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/session/password-reset/confirm',
        payload: { token: resetLink.searchParams.get('token'), password: 'a new and long password' },
      });

      await signUp(broken.app);
      // The refused send is logged after the answer: wait for its line.
      while (!refusedLogs.text.includes('confirmation link not sent'))
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.match(refusedLogs.text, /EAUTH 535/);

      for (const secret of [
        confirmLink.searchParams.get('token')!,
        resetLink.searchParams.get('token')!,
        relayPassword,
        encodeURIComponent(relayPassword),
        'a new and long password',
      ]) {
        assert.ok(!logs.text.includes(secret), `a secret reached the logs: ${secret.slice(0, 6)}…`);
        assert.ok(!refusedLogs.text.includes(secret), `a secret reached the logs: ${secret.slice(0, 6)}…`);
      }
    } finally {
      await t.close();
      await broken.close();
      await sink.close();
      await refusing.close();
    }
  });
});
