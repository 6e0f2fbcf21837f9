/**
 * An attacker who knows a user's address can spend its sign-in bucket with five wrong passwords,
 * locking the address for everyone, the right password included. A browser that signed in (or
 * signed up) before carries a signed device cookie bound to its user and is spared that lock; any
 * other client, the attacker's included, stays under it, and a forged cookie or another user's
 * spares nobody. The per-client bucket still applies to every browser.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestApp, testApp } from '../helpers/app.ts';
import { assertError } from '../http/expect.ts';
import { PASSWORD } from '../http/routes/v1/accounts/sessions.ts';

/** The `mailvet_device=…` pair a response set, with its attributes checked. */
function deviceCookieOf(response: LightMyRequestResponse): string {
  const line = [response.headers['set-cookie']].flat().find((each) => each?.startsWith('mailvet_device='));
  assert.ok(line, 'the device cookie is set');
  for (const attribute of [/HttpOnly/i, /SameSite=Lax/i, /Path=\/api\/v1\/session/, /Max-Age=31536000/])
    assert.match(line, attribute);
  return line.split(';')[0]!;
}

describe('the per-address sign-in lock', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t?.close());

  const signIn = (email: string, password: string, remoteAddress: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress,
      payload: { email, password },
      ...(cookie !== undefined && { headers: { cookie } }),
    });

  const signUpFrom = async (remoteAddress: string) => {
    const email = `user-${randomUUID()}@example.com`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      remoteAddress,
      payload: { email, password: PASSWORD },
    });
    assert.equal(response.statusCode, 201, response.body);
    return { email, device: deviceCookieOf(response) };
  };

  test("an attacker's wrong passwords lock the address for others, not for the user's own browser", async () => {
    const victim = await signUpFrom('10.20.0.1');
    const signedIn = await signIn(victim.email, PASSWORD, '10.20.0.1', victim.device);
    assert.equal(signedIn.statusCode, 200);
    const device = deviceCookieOf(signedIn);

    for (let i = 0; i < 5; i++)
      assertError(await signIn(victim.email, `wrong ${i}`, '10.66.0.1'), 401, 'unauthorized');
    assertError(await signIn(victim.email, PASSWORD, '10.66.0.1'), 429, 'rate_limited');
    assertError(await signIn(victim.email, PASSWORD, '10.77.0.1'), 429, 'rate_limited');

    assert.equal((await signIn(victim.email, PASSWORD, '10.20.0.1', device)).statusCode, 200);
    // From anywhere: the cookie is the browser's, not its address's.
    assert.equal((await signIn(victim.email, PASSWORD, '10.20.9.9', device)).statusCode, 200);
    // A wrong password from that browser is still wrong.
    assertError(await signIn(victim.email, 'still wrong', '10.20.0.1', device), 401, 'unauthorized');
  });

  test("a forged device cookie, or another user's, spares nobody", async () => {
    const victim = await signUpFrom('10.21.0.1');
    const other = await signUpFrom('10.21.0.2');
    for (let i = 0; i < 5; i++) await signIn(victim.email, `wrong ${i}`, '10.67.0.1');
    const [, value] = victim.device.split('=') as [string, string];
    const [userId, issued, mac] = value.split('.') as [string, string, string];
    const forgeries = [
      other.device,
      `mailvet_device=${userId}.${issued}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`,
      `mailvet_device=${userId}.${Number(issued) + 1}.${mac}`,
      `mailvet_device=${randomUUID()}.${issued}.${mac}`,
      `mailvet_device=${userId}`,
      'mailvet_device=%00%ff',
      `mailvet_device=${'x'.repeat(5000)}`,
    ];
    for (const cookie of forgeries)
      assertError(await signIn(victim.email, PASSWORD, '10.21.0.3', cookie), 429, 'rate_limited');
  });

  test('the per-client bucket still applies to a browser that signed in before', async () => {
    const user = await signUpFrom('10.22.0.1');
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await signIn(user.email, `wrong ${i}`, '10.22.0.1', user.device)).statusCode);
    assert.deepEqual(statuses, [...Array(20).fill(401), 429]);
  });
});

test('the device cookie is Secure when the session cookie is (an https MAILVET_PUBLIC_URL)', async () => {
  const t = await testApp({ env: { MAILVET_PUBLIC_URL: 'https://verify.example.com' } });
  try {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/signup',
      payload: { email: `secure-${randomUUID()}@example.com`, password: PASSWORD },
    });
    assert.equal(response.statusCode, 201, response.body);
    deviceCookieOf(response);
    const line = [response.headers['set-cookie']].flat().find((each) => each?.startsWith('mailvet_device='));
    assert.match(line ?? '', /;\s*Secure/i);
  } finally {
    await t.close();
  }
});
