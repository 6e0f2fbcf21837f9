/**
 * The emulator's OAuth 2 endpoints, as HubSpot's: the consent page (`/oauth/authorize`, answered at
 * once for the first portal), `/oauth/v3/token` (authorization code and refresh token; access tokens
 * of 30 minutes), access-token info for OAuth tokens (`/oauth/v1/access-tokens/{token}`) and for
 * private apps (`/oauth/v2/private-apps/get/access-token-info`).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { unauthorized } from './errors.ts';
import type { Portal, World } from './state.ts';

export const ACCESS_TOKEN_SECONDS = 1800;

/** What the OAuth endpoints need of the emulator. */
export interface OAuthHost {
  world: World;
  app: { clientId: string; clientSecret: string } | undefined;
  now(): number;
  grant(portalId: number, redirectUri: string): string;
  portal(portalId: number): Portal;
}

export function handleOAuth(
  host: OAuthHost,
  request: http.IncomingMessage,
  url: URL,
  text: string,
  send: (status: number, body: unknown, headers?: Record<string, string>) => true,
  response: http.ServerResponse,
): true {
  const app = host.app;
  if (url.pathname === '/oauth/authorize' && request.method === 'GET') {
    // The consent page, answered at once for the first portal: the browser goes back with a code.
    const portal = [...host.world.portals.values()][0];
    const redirect = url.searchParams.get('redirect_uri') ?? '';
    if (app === undefined || url.searchParams.get('client_id') !== app.clientId || portal === undefined)
      return send(400, {
        status: 'error',
        message: 'unknown client_id',
        correlationId: randomUUID(),
        category: 'VALIDATION_ERROR',
      });
    const target = new URL(redirect);
    target.searchParams.set('code', host.grant(portal.portalId, redirect));
    target.searchParams.set('state', url.searchParams.get('state') ?? '');
    response.writeHead(302, { location: target.toString() });
    response.end();
    return true;
  }
  if (
    (url.pathname === '/oauth/v3/token' || url.pathname === '/oauth/v1/token') &&
    request.method === 'POST'
  ) {
    const form = new URLSearchParams(text);
    if (
      app === undefined ||
      form.get('client_id') !== app.clientId ||
      form.get('client_secret') !== app.clientSecret
    )
      return send(400, {
        status: 'BAD_CLIENT_ID',
        message: 'missing or unknown client id',
        correlationId: randomUUID(),
      });
    let grant: { portalId: number; scopes: string[] } | undefined;
    let refreshToken: string;
    if (form.get('grant_type') === 'authorization_code') {
      const code = host.world.codes.get(form.get('code') ?? '');
      if (code === undefined || code.redirectUri !== form.get('redirect_uri'))
        return send(400, {
          status: 'BAD_AUTH_CODE',
          message: 'missing or unknown auth code',
          correlationId: randomUUID(),
        });
      host.world.codes.delete(form.get('code')!);
      grant = code;
      refreshToken = randomUUID();
      host.world.refreshTokens.set(refreshToken, {
        portalId: code.portalId,
        scopes: code.scopes,
        revoked: false,
      });
    } else if (form.get('grant_type') === 'refresh_token') {
      refreshToken = form.get('refresh_token') ?? '';
      const known = host.world.refreshTokens.get(refreshToken);
      if (known === undefined || known.revoked)
        return send(400, {
          status: 'BAD_REFRESH_TOKEN',
          message: 'missing or unknown refresh token',
          correlationId: randomUUID(),
        });
      grant = known;
    } else {
      return send(400, {
        status: 'BAD_GRANT_TYPE',
        message: 'unknown grant_type',
        correlationId: randomUUID(),
      });
    }
    const accessToken = `CO${randomUUID().replaceAll('-', '')}`;
    host.world.tokens.set(accessToken, {
      portalId: grant.portalId,
      kind: 'oauth',
      scopes: grant.scopes,
      expiresAt: host.now() + ACCESS_TOKEN_SECONDS * 1000,
      revoked: false,
    });
    return send(200, {
      token_type: 'bearer',
      access_token: accessToken,
      refresh_token: refreshToken,
      expires_in: ACCESS_TOKEN_SECONDS,
    });
  }
  const accessInfo = /^\/oauth\/v1\/access-tokens\/(.+)$/.exec(url.pathname);
  if (accessInfo && request.method === 'GET') {
    const token = host.world.tokens.get(decodeURIComponent(accessInfo[1]!));
    if (token === undefined || token.revoked || (token.expiresAt !== null && token.expiresAt <= host.now()))
      return send(404, {
        status: 'error',
        message: 'Token not found',
        correlationId: randomUUID(),
        category: 'OBJECT_NOT_FOUND',
      });
    const portal = host.portal(token.portalId);
    return send(200, {
      token: accessInfo[1],
      hub_domain: portal.hubDomain,
      hub_id: portal.portalId,
      scopes: token.scopes,
      app_id: 1,
      user_id: 1,
      token_type: 'access',
      expires_in: token.expiresAt === null ? 0 : Math.floor((token.expiresAt - host.now()) / 1000),
    });
  }
  if (url.pathname === '/oauth/v2/private-apps/get/access-token-info' && request.method === 'POST') {
    let key = '';
    try {
      key = String((JSON.parse(text) as { tokenKey?: unknown }).tokenKey ?? '');
    } catch {}
    const token = host.world.tokens.get(key);
    if (token === undefined || token.revoked || token.kind !== 'private_app')
      return send(401, unauthorized().body());
    return send(200, { userId: 1, hubId: token.portalId, appId: 2, scopes: token.scopes });
  }
  return send(404, {
    status: 'error',
    message: 'not found',
    correlationId: randomUUID(),
    category: 'OBJECT_NOT_FOUND',
  });
}
