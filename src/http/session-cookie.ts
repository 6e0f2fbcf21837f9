/**
 * The dashboard's session cookie: `HttpOnly` (no script reads it), `SameSite=Lax`
 * (not sent on other sites' subrequests), `Secure` behind https, for the whole site.
 */

import type {} from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { SESSION_LIFETIME_MS } from '../accounts/sessions.ts';

export const SESSION_COOKIE = 'mailvet_session';

/** Sets the cookie with the session's full lifetime. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: SESSION_LIFETIME_MS / 1000,
  });
}

/** Tells the browser to forget the cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
