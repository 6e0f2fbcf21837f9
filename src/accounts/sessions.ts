/**
 * Dashboard sessions: a random token the browser keeps in an HttpOnly cookie, stored
 * only as its SHA-256 hash, valid 30 days after its last use. The CSRF token is derived from the
 * session (an HMAC under the server's secret), so it needs no storage and a token of one session
 * is worthless in another.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashApiKey } from './api-keys.ts';
import type { Session, User, UserStore } from './ports.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A session ends this long after its last use. */
export const SESSION_LIFETIME_MS = 30 * DAY_MS;
/** Sliding expiry costs a write: done at most this often per session. */
const EXTEND_EVERY_MS = 60 * 60 * 1000;

/** A session just started: the token goes to the browser once, never to the store. */
export interface StartedSession {
  session: Session;
  token: string;
}

/** A session a request presented, still valid. */
export interface ResumedSession {
  session: Session;
  user: User;
  /** The expiry moved: the cookie should be sent again with the new lifetime. */
  extended: boolean;
}

export interface SessionDeps {
  users: UserStore;
  /** MAILVET_SECRET_KEY: CSRF tokens are derived under it. */
  secretKey: Buffer;
  now?: () => Date;
}

export class SessionManager {
  readonly #deps: SessionDeps;
  readonly #now: () => Date;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** Starts a session for the user. */
  async start(user: User): Promise<StartedSession> {
    const token = randomBytes(32).toString('base64url');
    const now = this.#now();
    const session = await this.#deps.users.createSession({
      userId: user.id,
      tokenHash: hashToken(token),
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
    });
    return { session, token };
  }

  /** The session of a presented token; null when unknown, expired, or its user is gone. */
  async resume(token: string): Promise<ResumedSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const session = await this.#deps.users.findSessionByHash(hashToken(token));
    if (session === null) return null;
    const now = this.#now();
    if (Date.parse(session.expiresAt) <= now.getTime()) {
      await this.#deps.users.deleteSession(session.id);
      return null;
    }
    const user = await this.#deps.users.findUserById(session.userId);
    if (user === null) return null;
    if (now.getTime() - Date.parse(session.lastSeenAt) < EXTEND_EVERY_MS) {
      return { session, user, extended: false };
    }
    const extended = {
      ...session,
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
    };
    await this.#deps.users.extendSession(session.id, extended.lastSeenAt, extended.expiresAt);
    return { session: extended, user, extended: true };
  }

  /** Ends a session (sign-out). */
  end(sessionId: string): Promise<void> {
    return this.#deps.users.deleteSession(sessionId);
  }

  /** The CSRF token of a session. */
  csrfToken(session: Session): string {
    return createHmac('sha256', this.#deps.secretKey).update(`csrf:${session.tokenHash}`).digest('base64url');
  }

  /** Whether `candidate` is this session's CSRF token, compared in constant time. */
  csrfMatches(session: Session, candidate: string | undefined): boolean {
    if (candidate === undefined) return false;
    const expected = Buffer.from(this.csrfToken(session));
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** The stored form of a session token: an API key's (SHA-256, hex; 256 random bits need no salt). */
export const hashToken = hashApiKey;
