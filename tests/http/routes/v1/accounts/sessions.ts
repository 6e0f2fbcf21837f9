/**
 * Signing up and in through the API as the dashboard does: the session cookie, the CSRF token and
 * this service's Origin on unsafe requests.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/** The origin of the test apps (MAILVET_PUBLIC_URL's default). */
export const ORIGIN = 'http://localhost:8080';
export const PASSWORD = 'correct horse battery';

/** A signed-in browser. */
export interface Browser {
  email: string;
  cookie: string;
  csrf: string;
  accountId: string;
  /** An injected request with the cookie, and on unsafe methods the CSRF token and Origin. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** The `mailvet_session=…` pair of a response's Set-Cookie. */
export function sessionCookieOf(response: LightMyRequestResponse): string {
  const header = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('mailvet_session='));
  assert.ok(header, 'the session cookie is set');
  return header.split(';')[0]!;
}

/** Signs a new user up (a new account) and returns the browser. */
export async function signUp(
  app: FastifyInstance,
  email = `user-${randomUUID()}@example.com`,
): Promise<Browser> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/signup',
    payload: { email, password: PASSWORD },
  });
  assert.equal(response.statusCode, 201, response.body);
  return browserOf(app, email, response);
}

/** Signs an existing user in. */
export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<Browser> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password } });
  assert.equal(response.statusCode, 200, response.body);
  return browserOf(app, email, response);
}

function browserOf(app: FastifyInstance, email: string, response: LightMyRequestResponse): Browser {
  const body = response.json() as { csrf_token: string; account: { id: string } };
  const cookie = sessionCookieOf(response);
  return {
    email,
    cookie,
    csrf: body.csrf_token,
    accountId: body.account.id,
    request: (options) => {
      const unsafe = !['GET', 'HEAD', undefined].includes(options.method as string | undefined);
      return app.inject({
        ...options,
        headers: {
          cookie,
          ...(unsafe && { 'x-csrf-token': body.csrf_token, origin: ORIGIN }),
          ...(options.headers as Record<string, string> | undefined),
        },
      });
    },
  };
}
