/**
 * Authentication of the /api/v1 routes: a Bearer API key, or the dashboard's
 * session cookie. A key is looked up by its SHA-256 hash and confirmed in constant time. A key
 * revoked through this process is refused on its next request; on PostgreSQL, one revoked by
 * another process too, and on SQLite within 100 ms (the store keeps the keys it knows while no
 * other connection commits: sqlite/known-keys.ts). A session's unsafe requests must carry its
 * CSRF token and come from this service's origin.
 *
 * While a sign-up waits for its address to be confirmed (a mail relay is set), its session may
 * read but not act: every unsafe request is 403 `account_unconfirmed` (no verification, list, run,
 * domain check or key), save the routes that say `beforeConfirmation` (sign-out, the password,
 * sending the link again). With no key made meanwhile, the account has nothing else to act with.
 */

import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { awaitsConfirmation } from '../../accounts/account-mail.ts';
import { hashApiKey, hashesEqual, looksLikeApiKey } from '../../accounts/api-keys.ts';
import type { KeyUseRecorder } from '../../accounts/key-use.ts';
import type { Plan } from '../../accounts/plans.ts';
import type { KeyWithAccount } from '../../accounts/ports.ts';
import type { ResumedSession, SessionManager } from '../../accounts/sessions.ts';
import type { Store } from '../../store.ts';
import { meterFor } from '../../usage/meter.ts';
import type { Caller } from '../../usage/verification-service.ts';
import { ApiError, notSignedIn, unauthorized } from '../errors.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../session-cookie.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A session that has not confirmed its address may use this route (auth.ts). */
    beforeConfirmation?: boolean;
  }
  interface FastifyRequest {
    /** The key (or the dashboard's) the request acts for; set by the auth hook on authenticated routes. */
    caller: Caller | null;
    /** The signed-in session, when the request came with one (and no API key). */
    session: ResumedSession | null;
  }
}

export interface AuthDeps {
  store: Pick<Store, 'findApiKeyByHash' | 'knownApiKeyByHash' | 'findAccount' | 'dashboardKey'>;
  plans: Readonly<Record<string, Plan>>;
  /** Records keys' last use. */
  keyUse?: Pick<KeyUseRecorder, 'used'>;
  /** Sessions; without them (tests of the verification routes) only keys are accepted. */
  sessions?: SessionAuth;
}

/** What session authentication needs. */
export interface SessionAuth {
  manager: SessionManager;
  /** The origin unsafe requests with a session may come from (MAILVET_PUBLIC_URL's). */
  publicOrigin: string;
  /** The cookie is `Secure` (MAILVET_PUBLIC_URL is https). */
  secureCookie: boolean;
  /** A mail relay is set: a sign-up acts only once its address is confirmed. */
  confirmationRequired?: boolean;
}

// RFC 7235: the scheme is case-insensitive; RFC 6750: one token68 after it.
const BEARER = /^Bearer +([^\s]+) *$/i;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The bearer token of an Authorization header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/** Adds the auth hook (onRequest) to the registering context. */
export const authPlugin = fp<AuthDeps>(async (app, deps) => {
  const keys: KeyAuth = { ...deps, callers: new WeakMap() };
  app.decorateRequest('caller', null);
  app.decorateRequest('session', null);
  // A callback hook, not an async one: a key this process already knows is answered in the same
  // turn, without the promises and turns an async hook and lookup cost every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.authorization !== undefined || deps.sessions === undefined) {
      let keyHash: string;
      let known: Caller | undefined;
      try {
        keyHash = hashOfPresentedKey(request.headers.authorization);
        const found = deps.store.knownApiKeyByHash?.(keyHash);
        known = found === undefined ? undefined : callerOfKey(keys, found, keyHash);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (known !== undefined) {
        request.caller = known;
        done();
        return;
      }
      lookedUpCaller(keys, keyHash).then((caller) => {
        request.caller = caller;
        done();
      }, done);
      return;
    }
    sessionAuth(deps.sessions, deps, request, reply).then(() => done(), done);
  });
});

async function sessionAuth(
  sessions: SessionAuth,
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = request.cookies?.[SESSION_COOKIE];
  if (token === undefined) throw unauthorized(false);
  const resumed = await sessions.manager.resume(token);
  if (resumed === null) {
    clearSessionCookie(reply, sessions.secureCookie);
    throw notSignedIn('The session has ended: sign in again');
  }
  if (!SAFE_METHODS.has(request.method)) {
    checkSameOrigin(request, sessions, resumed);
    checkConfirmed(request, sessions, resumed);
  }
  if (resumed.extended) setSessionCookie(reply, token, sessions.secureCookie);
  request.session = resumed;
  request.caller = await sessionCaller(deps, resumed);
}

/**
 * What key authentication needs, with each key's caller made once (by this plugin's plans) while
 * the store hands back the same record (it keeps the keys it knows).
 */
interface KeyAuth extends AuthDeps {
  callers: WeakMap<KeyWithAccount, Caller>;
}

/** The caller of a key this process does not know yet: the store looks it up. */
async function lookedUpCaller(deps: KeyAuth, keyHash: string): Promise<Caller> {
  return callerOfKey(deps, await deps.store.findApiKeyByHash(keyHash), keyHash);
}

/** The hash of the bearer key; refuses a missing or malformed one before any lookup. */
function hashOfPresentedKey(header: string | undefined): string {
  const token = bearerToken(header);
  if (token === undefined) throw unauthorized(false);
  // Malformed keys never reach the store.
  if (!looksLikeApiKey(token)) throw unauthorized(true);
  return hashApiKey(token);
}

/** The caller of a found key, once its hash is confirmed in constant time; refuses a revoked one. */
function callerOfKey(deps: KeyAuth, found: KeyWithAccount | null, keyHash: string): Caller {
  if (
    found === null ||
    found.key.kind !== 'api' ||
    found.key.revokedAt !== null ||
    !hashesEqual(found.key.keyHash, keyHash)
  ) {
    throw unauthorized(true);
  }
  deps.keyUse?.used(found.key.id, new Date());
  let caller = deps.callers.get(found);
  if (caller === undefined) {
    caller = meterFor(deps.plans, found.account, found.key);
    deps.callers.set(found, caller);
  }
  return caller;
}

async function sessionCaller(deps: AuthDeps, resumed: ResumedSession): Promise<Caller> {
  const account = await deps.store.findAccount(resumed.user.accountId);
  if (account === null) throw notSignedIn('The session has ended: sign in again');
  return meterFor(deps.plans, account, await deps.store.dashboardKey(account.id));
}

/**
 * A session's unsafe request must come from our own pages: its CSRF token (which another site
 * cannot read) and an Origin of this service (the public one, or the host the request came to).
 */
function checkSameOrigin(request: FastifyRequest, sessions: SessionAuth, resumed: ResumedSession): void {
  const origin = request.headers.origin;
  const ownHost =
    request.headers.host === undefined ? undefined : `${request.protocol}://${request.headers.host}`;
  if (origin === undefined || (origin !== sessions.publicOrigin && origin !== ownHost)) {
    throw new ApiError('forbidden', {
      message: 'Cross-site request refused: the Origin is not this service',
    });
  }
  const csrf = request.headers['x-csrf-token'];
  if (!sessions.manager.csrfMatches(resumed.session, typeof csrf === 'string' ? csrf : undefined)) {
    throw new ApiError('forbidden', {
      message: 'Missing or wrong X-CSRF-Token: take it from GET /api/v1/session',
    });
  }
}

/** An unsafe request of a session whose address is still to be confirmed is refused (see the header). */
function checkConfirmed(request: FastifyRequest, sessions: SessionAuth, resumed: ResumedSession): void {
  if (!awaitsConfirmation(resumed.user, sessions.confirmationRequired === true)) return;
  if (request.routeOptions.config?.beforeConfirmation === true) return;
  throw new ApiError('account_unconfirmed');
}

/** The caller of an authenticated route; a missing one is a bug (the route is outside auth). */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null)
    throw new ApiError('internal_error', { message: 'route is not authenticated' });
  return request.caller;
}

/** The session of a session-only route; a request with an API key is refused (keys do not manage keys). */
export function sessionOf(request: FastifyRequest): ResumedSession {
  if (request.session === null) {
    throw new ApiError('forbidden', {
      message: 'Sign in to the dashboard for this: API keys cannot manage keys or sessions',
    });
  }
  return request.session;
}
