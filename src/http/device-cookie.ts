/**
 * The device cookie of a browser that signed in before (src/accounts/devices.ts): `HttpOnly`,
 * `SameSite=Lax`, `Secure` when the session cookie is, and sent only to the session's routes
 * (`/api/v1/session…`), where sign-in reads it. It outlives sign-out: it names a browser, not a
 * session.
 */
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_LIFETIME_MS } from '../accounts/devices.ts';

export const DEVICE_COOKIE = 'mailvet_device';
const DEVICE_COOKIE_PATH = '/api/v1/session';

/** Sets the cookie with the token's whole lifetime. */
export function setDeviceCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_LIFETIME_MS / 1000,
  });
}

/** The token the request carries, if any. */
export function deviceTokenOf(request: FastifyRequest): string | undefined {
  return request.cookies?.[DEVICE_COOKIE];
}
