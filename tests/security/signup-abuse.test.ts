/**
 * Sign-ups made again and again from one host: an IPv6 host picks any address of its /64, so the
 * sign-in and sign-up throttles count a /64 as one client; and MAILVET_SIGNUP_DAILY_MAX caps the new
 * accounts of the whole server (its bucket is the rate limiter's, shared by every process: Redis in
 * scale-out, one limiter shared by two apps here). A public server with open sign-up and no relay
 * says at start what to do about it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SystemClock } from '../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory.ts';
import { loadConfig } from '../../src/config.ts';
import { openSignupWarning } from '../../src/container/mail.ts';
import { clientGroup } from '../../src/http/sign-in-throttle.ts';
import { startServer } from '../../src/server.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError } from '../http/expect.ts';
import { LogCapture } from '../http/log-capture.ts';
import { PASSWORD } from '../http/routes/v1/accounts/sessions.ts';

const signUpFrom = (t: TestApp, remoteAddress: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/signup',
    remoteAddress,
    payload: { email: `abuser-${randomUUID()}@example.com`, password: PASSWORD },
  });

describe('IPv6 clients are their /64', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t?.close());

  test('names a client by its /64, an IPv4 (mapped or not) by itself', () => {
    assert.equal(clientGroup('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(clientGroup('2001:db8:1:2::1'), clientGroup('2001:0db8:0001:0002:ffff::9'));
    assert.notEqual(clientGroup('2001:db8:1:2::1'), clientGroup('2001:db8:1:3::1'));
    assert.equal(clientGroup('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(clientGroup('192.0.2.7'), '192.0.2.7');
  });

  test('sign-ups from ever new addresses of one /64 are throttled as one client', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 11; i++)
      statuses.push((await signUpFrom(t, `2001:db8:aa:1::${i.toString(16)}`)).statusCode);
    assert.deepEqual(statuses, [...Array(10).fill(201), 429]);
    assert.equal((await signUpFrom(t, '2001:db8:aa:2::1')).statusCode, 201, 'another /64 is another client');
  });

  test('sign-in attempts from ever new addresses of one /64 are throttled as one client', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 21; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: `2001:db8:bb:1:${i.toString(16)}::1`,
        payload: { email: `spray-${i}@example.com`, password: PASSWORD },
      });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [...Array(20).fill(401), 429]);
  });
});

describe('MAILVET_SIGNUP_DAILY_MAX', () => {
  const limiter = new MemoryRateLimiter(new SystemClock());
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    const env = { MAILVET_SIGNUP_DAILY_MAX: '3' };
    [first, second] = await Promise.all([
      testApp({ env, rateLimiter: limiter }),
      testApp({ env, rateLimiter: limiter }),
    ]);
  });
  after(async () => {
    await first?.close();
    await second?.close();
  });

  test('caps new accounts across clients and processes, with a clear 429', async () => {
    assert.equal((await signUpFrom(first, '198.51.100.1')).statusCode, 201);
    assert.equal((await signUpFrom(second, '198.51.100.2')).statusCode, 201);
    assert.equal((await signUpFrom(first, '198.51.100.3')).statusCode, 201);
    for (const [t, client] of [
      [first, '198.51.100.4'],
      [second, '203.0.113.9'],
    ] as const) {
      const refused = await signUpFrom(t, client);
      assertError(refused, 429, 'rate_limited');
      assert.match(refused.json().message, /Too many new accounts today/);
      // Refilled evenly through the day: the next one in under a day's share.
      assert.ok(Number(refused.headers['retry-after']) <= 86_400 / 3 + 1);
    }
  });

  test('is a configuration figure with a sensible default and bounds', () => {
    assert.equal(loadConfig({}).MAILVET_SIGNUP_DAILY_MAX, 1000);
    assert.throws(() => loadConfig({ MAILVET_SIGNUP_DAILY_MAX: '0' }), /MAILVET_SIGNUP_DAILY_MAX/);
  });
});

describe('the start-up warning of a public server anyone may sign up on without a relay', () => {
  const relay = { MAILVET_MAIL_URL: 'smtp://127.0.0.1:2525?tls=none', MAILVET_MAIL_FROM: 'a@example.com' };

  test('is given only for a public URL, open sign-up and no relay', () => {
    const warns = (env: Record<string, string>) => openSignupWarning(loadConfig(env)) !== null;
    assert.equal(warns({ MAILVET_PUBLIC_URL: 'https://verify.example.com' }), true);
    assert.equal(warns({ MAILVET_PUBLIC_URL: 'https://verify.example.com', ...relay }), false);
    assert.equal(
      warns({ MAILVET_PUBLIC_URL: 'https://verify.example.com', MAILVET_SIGNUP: 'closed' }),
      false,
    );
    for (const local of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'])
      assert.equal(warns({ MAILVET_PUBLIC_URL: local }), false, local);
    assert.equal(warns({}), false, 'unset: localhost');
  });

  test('is logged once by `mailvet serve`, naming what to set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-signup-warning-'));
    const logs = new LogCapture();
    const running = await startServer(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        MAILVET_DATA_DIR: dataDir,
        MAILVET_SMTP_PROBE: 'false',
        MAILVET_PUBLIC_URL: 'https://verify.example.com',
      }),
      { handleSignals: false, worker: false, logger: { level: 'info', stream: logs } },
    );
    try {
      const warnings = logs.entries().filter((entry) => /sign-up is open/.test(String(entry.msg)));
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]!.level, 40);
      assert.match(String(warnings[0]!.msg), /MAILVET_MAIL_URL/);
      assert.match(String(warnings[0]!.msg), /MAILVET_SIGNUP=closed/);
    } finally {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
