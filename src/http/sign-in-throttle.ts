/**
 * Throttles sign-in attempts per address and per client address, and sign-ups per client address
 * and across the server, on the same token buckets as the API's rate limit (shared through Redis
 * in scale-out). Every attempt takes a token: a burst, then a slow refill. Account mail is paced the
 * same way: reset requests per address and per client, resends per user, one-time links per client.
 *
 * A client is its address, but an IPv6 client is its /64: one host (one customer line) is handed
 * a whole /64 and may pick any of its 2^64 addresses, so per-address buckets would not hold it.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { RateDecision, RateLimiter } from '../usage/ports.ts';
import { ApiError } from './errors.ts';

/** A burst and a refill rate per second. */
export interface Bucket {
  burst: number;
  perSecond: number;
}

export interface ThrottleFigures {
  /** Attempts on one address: 5, then one a minute. */
  perAddress: Bucket;
  /** Attempts from one client: 20, then one every 6 s. */
  perClient: Bucket;
  /** Sign-ups from one client: 10, then one a minute. */
  signUpsPerClient: Bucket;
  /** Sign-ups from everyone (MAILVET_SIGNUP_DAILY_MAX): that many, refilled evenly over a day. */
  signUpsPerServer: Bucket;
  /** Password-reset requests for one address: 3, then one every 10 minutes. */
  resetsPerAddress: Bucket;
  /** Password-reset requests from one client: 10, then one a minute. */
  resetsPerClient: Bucket;
  /** Confirmation links sent again to one user: 3, then one every 10 minutes. */
  resendsPerUser: Bucket;
}

const DAY_SECONDS = 24 * 60 * 60;

/** The sign-up bucket of MAILVET_SIGNUP_DAILY_MAX. */
export function signUpsPerDay(max: number): Bucket {
  return { burst: max, perSecond: max / DAY_SECONDS };
}

export const DEFAULT_THROTTLE: ThrottleFigures = {
  perAddress: { burst: 5, perSecond: 1 / 60 },
  perClient: { burst: 20, perSecond: 1 / 6 },
  signUpsPerClient: { burst: 10, perSecond: 1 / 60 },
  signUpsPerServer: signUpsPerDay(1000),
  resetsPerAddress: { burst: 3, perSecond: 1 / 600 },
  resetsPerClient: { burst: 10, perSecond: 1 / 60 },
  resendsPerUser: { burst: 3, perSecond: 1 / 600 },
};

/**
 * The throttles' name for a client address: an IPv4 address (an IPv4-mapped IPv6 one included) as
 * it is, an IPv6 address as its /64 network.
 */
export function clientGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/64`).toString()}/64`;
}

export class SignInThrottle {
  readonly #limiter: RateLimiter;
  readonly #figures: ThrottleFigures;

  constructor(limiter: RateLimiter, figures: ThrottleFigures = DEFAULT_THROTTLE) {
    this.#limiter = limiter;
    this.#figures = figures;
  }

  /**
   * Takes a sign-in attempt for the address from the client; throws 429 when either is spent. A
   * browser the address's user signed in with before (`knownDevice`) is spared the address's lock,
   * which anyone can spend with wrong passwords; the client's bucket still applies.
   */
  async signIn(email: string, clientIp: string, options: { knownDevice?: boolean } = {}): Promise<void> {
    const { perAddress, perClient } = this.#figures;
    refuseWhenSpent(await this.#take(`signin:client:${clientGroup(clientIp)}`, perClient));
    if (options.knownDevice === true) return;
    refuseWhenSpent(await this.#take(`signin:address:${addressKey(email)}`, perAddress));
  }

  /** Takes a sign-up from the client, then one of the server's day; throws 429 when either is spent. */
  async signUp(clientIp: string): Promise<void> {
    const { signUpsPerClient, signUpsPerServer } = this.#figures;
    refuseWhenSpent(await this.#take(`signup:client:${clientGroup(clientIp)}`, signUpsPerClient));
    refuseWhenSpent(
      await this.#take('signup:server', signUpsPerServer),
      'Too many new accounts today: try again later',
    );
  }

  /** Takes a password-reset request for the address from the client; throws 429 when either is spent. */
  async passwordReset(email: string, clientIp: string): Promise<void> {
    const { resetsPerAddress, resetsPerClient } = this.#figures;
    refuseWhenSpent(await this.#take(`reset:client:${clientGroup(clientIp)}`, resetsPerClient));
    refuseWhenSpent(await this.#take(`reset:address:${addressKey(email)}`, resetsPerAddress));
  }

  /** Takes a one-time link's use (confirmation, reset) from the client; throws 429 when spent. */
  async linkUse(clientIp: string): Promise<void> {
    refuseWhenSpent(await this.#take(`link:client:${clientGroup(clientIp)}`, this.#figures.perClient));
  }

  /** Takes a resend of the user's confirmation link; throws 429 when spent. */
  async confirmationResend(userId: string): Promise<void> {
    refuseWhenSpent(
      await this.#take(`resend:user:${userId}`, this.#figures.resendsPerUser),
      'A link was sent a moment ago: look for it in your inbox, or try again in a few minutes',
    );
  }

  #take(name: string, bucket: Bucket): Promise<RateDecision> {
    return this.#limiter.take(name, bucket.perSecond, bucket.burst);
  }
}

/** The address hashed: bucket names end up in Redis and must not hold personal data. */
function addressKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
}

function refuseWhenSpent(
  decision: RateDecision,
  message = 'Too many attempts: wait a little and try again',
): void {
  if (decision.allowed) return;
  throw new ApiError('rate_limited', { message, headers: { 'retry-after': decision.retryAfterSeconds } });
}
