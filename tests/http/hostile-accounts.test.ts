/**
 * Attack the account routes with hostile input: sign-up and sign-in bodies with huge,
 * empty, non-string, unicode and malformed fields; key bodies; forged and malformed session
 * cookies; CSRF tokens of another session. Every answer is a documented 2xx or 4xx with the error
 * body, never a 5xx, and nothing is made from a refused request. Seeded: replay with
 * HOSTILE_SEED.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { awkwardString, nonStringValue, Prng } from './hostile-values.ts';
import { type Browser, ORIGIN, signUp } from './routes/v1/accounts/sessions.ts';

const SEED = Number(process.env.HOSTILE_SEED ?? 20261126);
const CASES = 400;
const DOCUMENTED: Record<number, readonly string[]> = {
  400: ['bad_request'],
  401: ['unauthorized'],
  403: ['forbidden', 'signup_closed'],
  404: ['not_found'],
  409: ['conflict'],
  413: ['payload_too_large'],
  422: ['validation_failed'],
  429: ['rate_limited'],
};

/** What is wrong with an answer: a 5xx, an undocumented status or code, or a malformed error body. */
function problems(response: LightMyRequestResponse, allowed: readonly number[]): string[] {
  const found: string[] = [];
  if (!allowed.includes(response.statusCode)) found.push(`status ${response.statusCode}`);
  if (response.statusCode >= 400) {
    let body: Record<string, unknown>;
    try {
      body = response.json();
    } catch {
      return [...found, `not JSON: ${response.body.slice(0, 120)}`];
    }
    if (Object.keys(body).sort().join(',') !== 'code,errors,message,request_id')
      found.push('error body keys');
    if (!(DOCUMENTED[response.statusCode] ?? []).includes(String(body.code)))
      found.push(`code ${String(body.code)}`);
    if (body.request_id !== response.headers['x-request-id'])
      found.push('request_id differs from X-Request-Id');
    if (/\n\s+at |node_modules|\.ts:\d+/.test(response.body)) found.push('stack trace in the body');
    if (response.statusCode === 422 && !(Array.isArray(body.errors) && body.errors.length > 0)) {
      found.push('422 without the field at fault');
    }
  }
  return found;
}

/** A hostile value for a field: non-strings, awkward unicode, empty, huge. */
function hostileValue(prng: Prng): unknown {
  switch (prng.int(0, 6)) {
    case 0:
      return nonStringValue(prng);
    case 1:
      return awkwardString(prng);
    case 2:
      return '';
    case 3:
      return 'x'.repeat(prng.pick([255, 1025, 100_000]));
    case 4:
      return `${awkwardString(prng)}@${awkwardString(prng)}`;
    case 5:
      return prng.pick<unknown>([null, true, 0, -1, 1.5, 2 ** 60, [], {}, ['a'], { toString: 'x' }]);
    default:
      return 'a perfectly fine value 0123456789';
  }
}

/** A body for a route: sometimes not JSON or not an object at all. */
function hostileBody(prng: Prng, fields: readonly string[]): { payload: string; contentType: string } {
  const roll = prng.int(0, 9);
  if (roll === 0)
    return { payload: prng.bytes(prng.int(0, 64)).toString('latin1'), contentType: 'application/json' };
  if (roll === 1) return { payload: JSON.stringify(nonStringValue(prng)), contentType: 'application/json' };
  if (roll === 2)
    return { payload: 'email=a@b.c&password=x', contentType: 'application/x-www-form-urlencoded' };
  if (roll === 3)
    return { payload: `{"email": "${'a'.repeat(1_100_000)}"}`, contentType: 'application/json' };
  const body: Record<string, unknown> = {};
  for (const field of fields) if (prng.chance(0.85)) body[field] = hostileValue(prng);
  const text = JSON.stringify(body);
  // A prototype-poisoning key, as raw JSON: the parser must drop it, never apply it.
  const poisoned =
    text === '{}' ? '{"__proto__":{"admin":true}}' : `{"__proto__":{"admin":true},${text.slice(1)}`;
  return { payload: prng.chance(0.2) ? poisoned : text, contentType: 'application/json' };
}

describe('hostile input on the account routes', { concurrency: false }, () => {
  let t: TestApp;
  let owner: Browser;
  let other: Browser;
  const failures: string[] = [];
  before(async () => {
    console.log(`hostile accounts: seed ${SEED} (replay with HOSTILE_SEED=${SEED})`);
    // A rate the many requests of one session do not reach: the bodies are the point here.
    t = await testApp({
      plans: { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 100_000 } },
    });
    owner = await signUp(t.app);
    other = await signUp(t.app);
  });
  after(async () => t?.close());

  const record = (what: string, response: LightMyRequestResponse, allowed: readonly number[]) => {
    const found = problems(response, allowed);
    if (found.length > 0) failures.push(`${what}: ${found.join('; ')} — ${response.body.slice(0, 200)}`);
  };

  test('sign-up, sign-in, password and key bodies get documented answers, never a 5xx', async () => {
    const prng = new Prng(SEED);
    const routes = [
      {
        method: 'POST',
        url: '/api/v1/signup',
        fields: ['email', 'password', 'account_name'],
        as: null,
        allowed: [201, 400, 409, 413, 422, 429],
      },
      {
        method: 'POST',
        url: '/api/v1/session',
        fields: ['email', 'password'],
        as: null,
        allowed: [200, 400, 401, 413, 422, 429],
      },
      {
        method: 'POST',
        url: '/api/v1/keys',
        fields: ['name', 'rate_limit', 'monthly_cap'],
        as: 'owner',
        allowed: [201, 400, 413, 422, 429],
      },
      {
        method: 'POST',
        url: '/api/v1/account/password',
        fields: ['current_password', 'new_password'],
        as: 'owner',
        allowed: [400, 413, 422, 429],
      },
    ] as const;
    for (let i = 0; i < CASES; i++) {
      const route = prng.pick(routes);
      const { payload, contentType } = hostileBody(prng, route.fields);
      const response = await t.app.inject({
        method: route.method,
        url: route.url,
        remoteAddress: `10.${prng.int(0, 255)}.${prng.int(0, 255)}.${prng.int(1, 254)}`,
        headers: {
          'content-type': contentType,
          ...(route.as === 'owner' && { cookie: owner.cookie, 'x-csrf-token': owner.csrf, origin: ORIGIN }),
        },
        payload,
      });
      record(`${route.url} #${i}`, response, route.allowed);
    }
    // The owner's session survived every hostile password change, and its password is unchanged.
    assert.equal((await owner.request({ method: 'GET', url: '/api/v1/session' })).statusCode, 200);
    assert.deepEqual(failures, []);
  });

  test('forged, malformed and foreign cookies are 401; CSRF tokens of another session are 403', async () => {
    const prng = new Prng(SEED + 1);
    const forged = [
      ...Array.from(
        { length: 40 },
        () => `mailvet_session=${prng.bytes(prng.int(1, 64)).toString('base64url')}`,
      ),
      ...Array.from({ length: 20 }, () => `mailvet_session=${encodeURIComponent(awkwardString(prng))}`),
      `mailvet_session=${'A'.repeat(8_000)}`,
      `mailvet_session=${owner.cookie.split('=')[1]!.slice(0, -1)}B`,
      'mailvet_session',
      '=; ; ;=',
    ];
    for (const cookie of forged) {
      record(
        `cookie ${cookie.slice(0, 40)}`,
        await t.app.inject({ method: 'GET', url: '/api/v1/account', headers: { cookie } }),
        [401],
      );
    }
    const crossed = [
      { 'x-csrf-token': other.csrf, origin: ORIGIN },
      { 'x-csrf-token': owner.csrf.toLowerCase(), origin: ORIGIN },
      { 'x-csrf-token': `${owner.csrf} `, origin: ORIGIN },
      { 'x-csrf-token': '', origin: ORIGIN },
      { 'x-csrf-token': owner.csrf, origin: 'null' },
      { 'x-csrf-token': owner.csrf, origin: `${ORIGIN}.evil.example` },
    ];
    for (const headers of crossed) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { cookie: owner.cookie, ...headers },
        payload: { name: 'should not exist' },
      });
      record(`csrf ${JSON.stringify(headers).slice(0, 60)}`, response, [403]);
    }
    const keys = (await owner.request({ method: 'GET', url: '/api/v1/keys' })).json().keys as Array<{
      name: string;
    }>;
    assert.ok(
      keys.every((key) => key.name !== 'should not exist'),
      'no key was made by a refused request',
    );
    assert.deepEqual(failures, []);
  });
});
