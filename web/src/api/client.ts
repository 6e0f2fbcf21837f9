/**
 * The typed client of /api/v1 (types generated from the server's OpenAPI document). The session
 * cookie goes along on its own (same origin); the CSRF token the session gave is kept in memory
 * only, and sent on every unsafe request, as the API asks of cookie-authenticated calls.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

const UNSAFE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

let csrfToken: string | null = null;
let sessionEnded: () => void = () => {};

/** Keeps the session's CSRF token (null once signed out). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a signed-in request is refused with 401: the session expired or was ended elsewhere. */
export function onSessionEnded(listener: () => void): void {
  sessionEnded = listener;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken !== null && UNSAFE_METHODS.has(request.method)) {
      request.headers.set('X-CSRF-Token', csrfToken);
    }
    return request;
  },
};

// Sign-in, sign-up and the session probe answer 401 as part of their flow; any other 401 while a
// token is held means the session is gone.
const SESSION_FLOW = /^\/api\/v1\/(session|signup)$/;
const sessionWatch: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && csrfToken !== null && !SESSION_FLOW.test(new URL(request.url).pathname)) {
      sessionEnded();
    }
    return undefined;
  },
};

/** The API client: `api.GET('/api/v1/lists', …)`. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrf, sessionWatch);
