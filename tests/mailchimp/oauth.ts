/**
 * Mailchimp's OAuth 2 (login.mailchimp.com/oauth2/...), web-server flow: `GET /oauth2/authorize`
 * redirects to `redirect_uri?code&state` as if the chosen account had logged in and allowed the app;
 * `POST /oauth2/token` (form) exchanges a one-time code for `{access_token, expires_in: 0, scope:
 * null}` (tokens never expire); `GET /oauth2/metadata` with `Authorization: OAuth <token>` tells the
 * account's data centre and API endpoint.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hex, type World } from './state.ts';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** An answer of the OAuth endpoints: JSON, or a redirect. */
type OAuthAnswer = { status: number; body: unknown } | { status: 302; location: string };

function json(status: number, body: unknown): OAuthAnswer {
  return { status, body };
}

function oauthError(status: number, error: string, description: string): OAuthAnswer {
  return json(status, { error, error_description: description });
}

/** Answers a request under `/oauth2/`; `body` is the raw request body. */
export function handleOAuth(
  world: World,
  client: OAuthClient | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: string,
): void {
  const answer = answerOAuth(world, client, req, url, body);
  if ('location' in answer) res.writeHead(302, { location: answer.location });
  else res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
  res.end('location' in answer ? undefined : JSON.stringify(answer.body));
}

function answerOAuth(
  world: World,
  client: OAuthClient | undefined,
  req: IncomingMessage,
  url: URL,
  body: string,
): OAuthAnswer {
  const endpoint = url.pathname.slice('/oauth2/'.length);
  if (!client) return oauthError(404, 'not_found', 'OAuth is not configured on this emulator');
  if (endpoint === 'authorize' && req.method === 'GET') return authorize(world, client, url.searchParams);
  if (endpoint === 'token' && req.method === 'POST') return token(world, client, new URLSearchParams(body));
  if (endpoint === 'metadata' && req.method === 'GET') return metadata(world, req);
  return oauthError(404, 'not_found', 'No such OAuth endpoint');
}

function authorize(world: World, client: OAuthClient, query: URLSearchParams): OAuthAnswer {
  const redirectUri = query.get('redirect_uri') ?? '';
  if (query.get('client_id') !== client.clientId || !/^https?:\/\//.test(redirectUri)) {
    return oauthError(400, 'invalid_request', 'Unknown client_id or missing redirect_uri');
  }
  const target = new URL(redirectUri);
  const state = query.get('state');
  if (state !== null) target.searchParams.set('state', state);
  const accountId = world.oauthUser ?? world.accounts.keys().next().value;
  if (query.get('response_type') !== 'code') target.searchParams.set('error', 'unsupported_response_type');
  else if (accountId === 'deny' || accountId === undefined) target.searchParams.set('error', 'access_denied');
  else {
    const code = hex(32);
    world.codes.set(code, { accountId, clientId: client.clientId, redirectUri });
    target.searchParams.set('code', code);
  }
  return { status: 302, location: target.toString() };
}

function token(world: World, client: OAuthClient, form: URLSearchParams): OAuthAnswer {
  if (form.get('client_id') !== client.clientId || form.get('client_secret') !== client.clientSecret) {
    return oauthError(401, 'invalid_client', 'Invalid client credentials');
  }
  if (form.get('grant_type') !== 'authorization_code') {
    return oauthError(400, 'unsupported_grant_type', 'Only authorization_code is supported');
  }
  const code = world.codes.get(form.get('code') ?? '');
  // A code is good once, for the redirect_uri it was issued to.
  world.codes.delete(form.get('code') ?? '');
  if (!code || code.redirectUri !== form.get('redirect_uri')) {
    return oauthError(400, 'invalid_grant', 'Invalid authorization code');
  }
  const accessToken = hex(32);
  world.tokens.set(accessToken, code.accountId);
  return json(200, { access_token: accessToken, expires_in: 0, scope: null });
}

function metadata(world: World, req: IncomingMessage): OAuthAnswer {
  const [scheme, value] = (req.headers.authorization ?? '').split(' ');
  const account = scheme === 'OAuth' ? world.accounts.get(world.tokens.get(value ?? '') ?? '') : undefined;
  if (!account) return oauthError(401, 'invalid_token', 'Invalid or missing OAuth token');
  return json(200, {
    dc: account.dc,
    role: 'owner',
    accountname: account.name,
    user_id: Number.parseInt(account.loginId, 10),
    login: {
      email: account.email,
      avatar: null,
      login_id: Number.parseInt(account.loginId, 10),
      login_name: account.email,
      login_email: account.email,
    },
    login_url: `${world.origin}/oauth2`,
    api_endpoint: `${world.origin}/${account.dc}`,
  });
}
