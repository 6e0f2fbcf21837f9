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

// The account's rate limit is shared by its keys and its dashboard: on the free plan a page that
// loads five figures at once, right after another, can find the bucket empty. A read refused with
// 429 rate_limited changed nothing, so it is asked again once the server's Retry-After has passed,
// a few times at most; writes are never repeated, and quota_exceeded is an answer, not a wait.
const READ_METHODS = new Set(['GET', 'HEAD']);
const RATE_RETRIES = 3;
const MAX_RATE_WAIT_MS = 10_000;
const rateWait: Middleware = {
  async onResponse({ request, response }) {
    if (response.status !== 429 || !READ_METHODS.has(request.method)) return undefined;
    let answer = response;
    for (let attempt = 0; attempt < RATE_RETRIES && (await isRateLimited(answer)); attempt += 1) {
      const seconds = Number(answer.headers.get('retry-after'));
      const waitMs = Math.min(
        MAX_RATE_WAIT_MS,
        Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      answer = await fetch(request.clone());
    }
    return answer;
  },
};

/** Whether a response is the rate limit's 429 (read from a copy: the caller still reads the body). */
async function isRateLimited(response: Response): Promise<boolean> {
  if (response.status !== 429) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return body?.code === 'rate_limited';
}

/** The API client: `api.GET('/api/v1/lists', …)`. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
// Last, so its answer is the one the others see (openapi-fetch runs onResponse in reverse order).
api.use(csrf, sessionWatch, rateWait);
