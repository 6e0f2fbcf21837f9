/**
 * One-time links sent to a user's address (address confirmation, password reset). The token is
 * 32 random bytes (base64url, 43 characters) that only the message carries: the store keeps its
 * SHA-256 hash, as for sessions, so a copy of the database opens no account. A token works once,
 * until it expires, and a new one of the same purpose replaces the user's earlier one.
 */
import { randomBytes } from 'node:crypto';
import type { UserStore, UserTokenPurpose } from './ports.ts';
import { hashToken } from './sessions.ts';

const HOUR_MS = 60 * 60 * 1000;

/** How long a link works: a reset must be used soon; a confirmation may wait in an inbox. */
export const USER_TOKEN_LIFETIME_MS: Readonly<Record<UserTokenPurpose, number>> = {
  confirm_email: 48 * HOUR_MS,
  reset_password: HOUR_MS,
};

type TokenStore = Pick<UserStore, 'createUserToken' | 'takeUserToken'>;

/** Makes and stores a token for the user; returns the token itself, for the link. */
export async function issueUserToken(
  users: TokenStore,
  userId: string,
  purpose: UserTokenPurpose,
  now: Date,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await users.createUserToken({
    userId,
    purpose,
    tokenHash: hashToken(token),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + USER_TOKEN_LIFETIME_MS[purpose]).toISOString(),
  });
  return token;
}

/** Uses up a token: its user's id, or null when it is malformed, unknown, used or expired. */
export async function redeemUserToken(
  users: TokenStore,
  token: string,
  purpose: UserTokenPurpose,
  now: Date,
): Promise<string | null> {
  // A token of another shape was never issued: it never reaches the store.
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  return users.takeUserToken(hashToken(token), purpose, now.toISOString());
}
