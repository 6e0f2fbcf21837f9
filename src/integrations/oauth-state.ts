/**
 * The `state` of an OAuth flow, bound to the dashboard session that started it and to the platform:
 * a nonce, an expiry and an HMAC of both with the session's id and the provider's name under the
 * service's secret. The callback recomputes it
 * with the session it arrives with, so a link started in another browser (a login-CSRF attempt:
 * connecting the victim's Mailvet account to the attacker's Mailchimp) or a forged or stale state
 * is refused. Nothing is stored.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long the person has at the platform's consent page, ms. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** What a state is bound to: the session that started the flow, and the platform it went to. */
export interface OAuthStateBinding {
  sessionId: string;
  provider: string;
}

function mac(secretKey: Buffer, binding: OAuthStateBinding, nonce: string, expires: string): Buffer {
  return createHmac('sha256', secretKey)
    .update(`oauth-state:${binding.provider}:${binding.sessionId}:${nonce}:${expires}`)
    .digest();
}

/** A fresh state for this session and platform. */
export function issueOAuthState(secretKey: Buffer, binding: OAuthStateBinding, now: Date): string {
  const nonce = randomBytes(16).toString('base64url');
  const expires = String(now.getTime() + OAUTH_STATE_TTL_MS);
  return `${nonce}.${expires}.${mac(secretKey, binding, nonce, expires).toString('base64url')}`;
}

/** Whether `state` was issued for this session and platform, and is still fresh. */
export function oauthStateValid(
  secretKey: Buffer,
  binding: OAuthStateBinding,
  state: string,
  now: Date,
): boolean {
  const [nonce, expires, signature, extra] = state.split('.');
  if (nonce === undefined || expires === undefined || signature === undefined || extra !== undefined)
    return false;
  if (!/^\d{1,16}$/.test(expires) || Number(expires) < now.getTime()) return false;
  const expected = mac(secretKey, binding, nonce, expires);
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
