/**
 * Sign-up, sign-in, the session and sign-out against the real app on SQLite:
 * cookie attributes, hashed passwords and tokens, CSRF and Origin on unsafe methods, throttling,
 * one message for unknown users and wrong passwords, password changes ending other sessions,
 * expiry, and sign-up closed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../../../../../src/accounts/sessions.ts';
import { type TestApp, testApp } from '../../../../helpers/app.ts';
import { assertError } from '../../../expect.ts';
import { LogCapture } from '../../../log-capture.ts';
import { ORIGIN, PASSWORD, sessionCookieOf, signIn, signUp } from './sessions.ts';

describe('sessions', () => {
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    t = await testApp({ now: () => new Date(clock) });
  });
  after(async () => t?.close());

  test('sign-up makes an account and its owner, signs in with an HttpOnly Lax cookie, and stores only hashes', async () => {
    const email = `Jane.${randomUUID()}@Example.com`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      payload: { email, password: PASSWORD, account_name: 'Acme' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.equal(body.user.email, email.toLowerCase());
    assert.deepEqual([body.account.name, body.account.plan], ['Acme', 'free']);
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    const setCookie = [response.headers['set-cookie']].flat().join('\n');
    assert.match(setCookie, /mailvet_session=[A-Za-z0-9_-]{43}/);
    for (const attribute of [/HttpOnly/i, /SameSite=Lax/i, /Path=\//, /Max-Age=2592000/])
      assert.match(setCookie, attribute);
    assert.doesNotMatch(setCookie, /Secure/, 'no Secure over http');

    const user = await t.store.users.findUserByEmail(email.toLowerCase());
    assert.match(user?.passwordHash ?? '', /^\$argon2id\$/);
    assert.ok(!user?.passwordHash.includes(PASSWORD));
    const token = sessionCookieOf(response).split('=')[1]!;
    const stored = await t.store.users.findSessionByHash(hashToken(token));
    assert.ok(stored !== null, 'the session is found by the hash of its token');
    assert.notEqual(stored.tokenHash, token);

    const session = await t.app.inject({
      method: 'GET',
      url: '/api/v1/session',
      headers: { cookie: sessionCookieOf(response) },
    });
    assert.equal(session.statusCode, 200);
    assert.equal(session.json().csrf_token, body.csrf_token);
    assert.equal(session.json().account.id, body.account.id);
  });

  test('sign-up refuses a taken address (any case), a short password and a bad address with the field', async () => {
    const browser = await signUp(t.app);
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      payload: { email: browser.email.toUpperCase(), password: PASSWORD },
    });
    assertError(taken, 409, 'conflict', [{ field: 'email' }]);
    const short = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      payload: { email: `a-${randomUUID()}@example.com`, password: 'short' },
    });
    assertError(short, 422, 'validation_failed', [{ field: 'password' }]);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      payload: { email: 'not an address', password: PASSWORD },
    });
    assertError(bad, 422, 'validation_failed', [{ field: 'email' }]);
  });

  test('sign-in: one message for an unknown address and a wrong password; the right one signs in', async () => {
    const browser = await signUp(t.app);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: browser.email, password: 'not the password' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: `nobody-${randomUUID()}@example.com`, password: PASSWORD },
    });
    assertError(wrong, 401, 'unauthorized');
    assertError(unknown, 401, 'unauthorized');
    assert.equal(wrong.json().message, unknown.json().message);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const again = await signIn(t.app, browser.email);
    assert.notEqual(again.cookie, browser.cookie, 'a new session');
    assert.equal(again.accountId, browser.accountId);
  });

  test('unsafe requests with a session need its CSRF token and this origin; sign-out ends the session', async () => {
    const browser = await signUp(t.app);
    const other = await signUp(t.app);
    const signOut = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'DELETE',
        url: '/api/v1/session',
        headers: { cookie: browser.cookie, ...headers },
      });
    assertError(await signOut({ origin: ORIGIN }), 403, 'forbidden');
    assertError(await signOut({ origin: ORIGIN, 'x-csrf-token': other.csrf }), 403, 'forbidden');
    assertError(
      await signOut({ origin: 'https://evil.example', 'x-csrf-token': browser.csrf }),
      403,
      'forbidden',
    );
    assertError(await signOut({ 'x-csrf-token': browser.csrf }), 403, 'forbidden');
    // The same refusals on an API route taking a session: no list is made without the token.
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lists',
      headers: { cookie: browser.cookie, origin: ORIGIN },
      payload: { emails: ['a@example.com'] },
    });
    assertError(upload, 403, 'forbidden');

    const out = await signOut({ origin: ORIGIN, 'x-csrf-token': browser.csrf });
    assert.equal(out.statusCode, 204);
    assert.match([out.headers['set-cookie']].flat().join(''), /mailvet_session=;.*Expires=Thu, 01 Jan 1970/);
    assertError(await browser.request({ method: 'GET', url: '/api/v1/session' }), 401, 'unauthorized');
    assertError(await browser.request({ method: 'GET', url: '/api/v1/account' }), 401, 'unauthorized');
  });

  test('forged, malformed and unknown session cookies are 401, never 5xx', async () => {
    for (const cookie of [
      'mailvet_session=',
      'mailvet_session=forged',
      `mailvet_session=${'A'.repeat(43)}`,
      `mailvet_session=${'%'.repeat(5000)}`,
      'mailvet_session=%E0%A4%A',
      'mailvet_session="quoted"; mailvet_session=again',
    ]) {
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/account', headers: { cookie } });
      assertError(response, 401, 'unauthorized');
    }
  });

  test('ten wrong passwords for one address are throttled, whoever tries', async () => {
    const browser = await signUp(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: `10.0.0.${i + 1}`,
        payload: { email: browser.email, password: `wrong ${i}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        assertError(response, 429, 'rate_limited');
        assert.ok(Number(response.headers['retry-after']) >= 1);
      }
    }
    assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(5).fill(429)]);
    // The right password is refused too while throttled: guessing cannot go on through it.
    const right = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.0.1.1',
      payload: { email: browser.email, password: PASSWORD },
    });
    assertError(right, 429, 'rate_limited');
  });

  test('one client address trying many addresses is throttled', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: '10.9.9.9',
        payload: { email: `spray-${i}@example.com`, password: PASSWORD },
      });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [...Array(20).fill(401), 429, 429]);
  });

  test('a password change ends the other sessions, keeps this one, and the new password signs in', async () => {
    const browser = await signUp(t.app);
    const laptop = await signIn(t.app, browser.email);
    const change = (current: string, next: string) =>
      browser.request({
        method: 'POST',
        url: '/api/v1/account/password',
        payload: { current_password: current, new_password: next },
      });
    const wrong = await change('not it at all', 'a brand new password');
    assertError(wrong, 422, 'validation_failed', [{ field: 'current_password' }]);
    const weak = await change(PASSWORD, 'short');
    assertError(weak, 422, 'validation_failed', [{ field: 'new_password' }]);
    assert.equal((await change(PASSWORD, 'a brand new password')).statusCode, 204);
    assertError(await laptop.request({ method: 'GET', url: '/api/v1/session' }), 401, 'unauthorized');
    assert.equal((await browser.request({ method: 'GET', url: '/api/v1/session' })).statusCode, 200);
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.3.3.3',
      payload: { email: browser.email, password: PASSWORD },
    });
    assertError(old, 401, 'unauthorized');
    await signIn(t.app, browser.email, 'a brand new password');
  });

  test('a session ends 30 days after its last use, and use slides the end', async () => {
    const browser = await signUp(t.app);
    const start = clock;
    try {
      clock = start + 20 * 86_400_000;
      const used = await browser.request({ method: 'GET', url: '/api/v1/session' });
      assert.equal(used.statusCode, 200);
      assert.match(
        [used.headers['set-cookie']].flat().join(''),
        /Max-Age=2592000/,
        'the cookie is sent again',
      );
      clock = start + 45 * 86_400_000;
      assert.equal((await browser.request({ method: 'GET', url: '/api/v1/session' })).statusCode, 200);
      clock = start + 76 * 86_400_000;
      assertError(await browser.request({ method: 'GET', url: '/api/v1/session' }), 401, 'unauthorized');
    } finally {
      clock = Date.now();
    }
  });

  test('an API key cannot manage sessions or keys', async () => {
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: t.auth() }),
      403,
      'forbidden',
    );
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/keys', headers: t.auth() }),
      403,
      'forbidden',
    );
  });
});

describe('sign-up closed', () => {
  test('MAILVET_SIGNUP=closed refuses sign-ups with 403 signup_closed; users made by operators still sign in', async () => {
    const t = await testApp({ env: { MAILVET_SIGNUP: 'closed' } });
    try {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/signup',
        payload: { email: 'new@example.com', password: PASSWORD },
      });
      assertError(response, 403, 'signup_closed');
      assert.equal(await t.store.users.findUserByEmail('new@example.com'), null);
    } finally {
      await t.close();
    }
  });
});

describe('session secrets in logs', () => {
  test('passwords, session tokens and CSRF tokens never reach the logs, even at trace level', async () => {
    const logs = new LogCapture();
    const t = await testApp({ logger: { level: 'trace', stream: logs } });
    try {
      const browser = await signUp(t.app);
      await browser.request({
        method: 'POST',
        url: '/api/v1/account/password',
        payload: { current_password: PASSWORD, new_password: 'another fine password' },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        payload: { email: browser.email, password: 'a wrong password' },
      });
      await browser.request({ method: 'DELETE', url: '/api/v1/session' });
      // One line per request (the request log), and the debug and trace lines beside them.
      assert.ok(logs.lines.length >= 4, 'the requests were logged');
      const token = browser.cookie.split('=')[1]!;
      for (const secret of [
        PASSWORD,
        'another fine password',
        'a wrong password',
        token,
        hashToken(token),
        browser.csrf,
      ]) {
        assert.ok(!logs.text.includes(secret), `a secret reached the logs: ${secret.slice(0, 6)}…`);
      }
    } finally {
      await t.close();
    }
  });
});
