/**
 * API keys: `mv_live_` + 32 random bytes in base64url (43 characters). Only a SHA-256 hash and a short
 * display prefix are stored; the key itself is shown once.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every key starts with this, so leaked keys are recognisable (and scannable). */
export const API_KEY_PREFIX = 'mv_live_';

/** A fresh key, its hash for storage and its display prefix. */
export interface GeneratedApiKey {
  key: string;
  keyHash: string;
  displayPrefix: string;
}

/** Makes a new key. */
export function generateApiKey(): GeneratedApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, keyHash: hashApiKey(key), displayPrefix: key.slice(0, API_KEY_PREFIX.length + 6) };
}

/** The stored form of a key: SHA-256, hex. A key has 256 bits of entropy, so no salt is needed. */
export function hashApiKey(key: string): string {
  // crypto.hash: one call, no Hash object: a third of createHash's time, and every request asks.
  return hash('sha256', key, 'hex');
}

/** Compares two hex hashes in constant time. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** A cheap shape check before any lookup: prefix, length and alphabet. */
export function looksLikeApiKey(candidate: string): boolean {
  return /^mv_live_[A-Za-z0-9_-]{43}$/.test(candidate);
}
