/**
 * Where a HubSpot request's bearer token comes from: a private app's token as it is, or an OAuth
 * access token kept per refresh token in this process and refreshed 5 minutes before it expires
 * (HubSpot's last 30 minutes), or once after a 401. A refused refresh (the app uninstalled, the
 * token revoked) is `ProviderAuthError` with HubSpot's reason: the integration is disconnected.
 */
import { createHash } from 'node:crypto';
import { ProviderAuthError, ProviderError } from '../ports.ts';

export interface AccessTokens {
  /** A token to send now. */
  current(): Promise<string>;
  /** After a 401 on `stale`: a fresh token, or null when there is nothing to refresh (a private app). */
  afterRefusal(stale: string): Promise<string | null>;
}

/** A private app's access token: no expiry, nothing to refresh. */
export const privateAppToken = (token: string): AccessTokens => ({
  current: () => Promise.resolve(token),
  afterRefusal: () => Promise.resolve(null),
});

export interface OAuthApp {
  /** MAILVET_HUBSPOT_BASE_URL: the token endpoint is `/oauth/v3/token` there. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch: typeof fetch;
  now?: () => number;
}

interface Granted {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

const REFRESH_AHEAD_MS = 5 * 60_000;

/** Access tokens by the hash of their refresh token, shared by the sessions of this process. */
const cache = new Map<string, { accessToken: string; expiresAt: number }>();
const refreshing = new Map<string, Promise<string>>();

const keyOf = (refreshToken: string) => createHash('sha256').update(refreshToken).digest('base64url');

/** Keeps the access token a code exchange gave, so the first requests need no refresh. */
export function rememberGrant(granted: Granted): void {
  cache.set(keyOf(granted.refreshToken), { accessToken: granted.accessToken, expiresAt: granted.expiresAt });
}

/** Trades a code or a refresh token at `/oauth/v3/token`. */
export async function requestToken(app: OAuthApp, form: Record<string, string>): Promise<Granted> {
  let response: Response;
  let text: string;
  try {
    response = await app.fetch(`${app.baseUrl.replace(/\/+$/, '')}/oauth/v3/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        ...form,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    text = await response.text();
  } catch (error) {
    throw new ProviderError(`HubSpot's token endpoint did not answer (${String(error)})`, null);
  }
  const answer = parse(text);
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    const reason = typeof answer.message === 'string' ? answer.message : `status ${response.status}`;
    throw new ProviderAuthError(`HubSpot refused the authorization (${reason})`);
  }
  if (!response.ok)
    throw new ProviderError(`HubSpot's token endpoint answered ${response.status}`, response.status);
  const { access_token, refresh_token, expires_in } = answer;
  if (typeof access_token !== 'string' || typeof refresh_token !== 'string')
    throw new ProviderError('HubSpot gave no access token', response.status);
  const seconds = typeof expires_in === 'number' ? expires_in : 1800;
  return {
    accessToken: access_token,
    refreshToken: refresh_token,
    expiresAt: (app.now ?? Date.now)() + seconds * 1000,
  };
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** OAuth access tokens for one refresh token. */
export function oauthTokens(app: OAuthApp, refreshToken: string): AccessTokens {
  const key = keyOf(refreshToken);
  const now = app.now ?? Date.now;
  const refresh = (): Promise<string> => {
    let running = refreshing.get(key);
    if (running === undefined) {
      // One refresh at a time per token in this process: the concurrent requests share its answer.
      running = requestToken(app, { grant_type: 'refresh_token', refresh_token: refreshToken })
        .then((granted) => {
          cache.set(key, { accessToken: granted.accessToken, expiresAt: granted.expiresAt });
          return granted.accessToken;
        })
        .finally(() => refreshing.delete(key));
      refreshing.set(key, running);
    }
    return running;
  };
  return {
    current: async () => {
      const held = cache.get(key);
      if (held !== undefined && held.expiresAt - now() > REFRESH_AHEAD_MS) return held.accessToken;
      return refresh();
    },
    afterRefusal: async (stale) => {
      const held = cache.get(key);
      if (held !== undefined && held.accessToken !== stale) return held.accessToken;
      cache.delete(key);
      return refresh();
    },
  };
}
