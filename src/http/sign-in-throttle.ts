/**
 * Throttles sign-in attempts per address and per client address, and sign-ups per client address
 * (DESIGN §3.2), on the same token buckets as the API's rate limit (shared through Redis in
 * scale-out). Every attempt takes a token: a burst, then a slow refill.
 */
import { createHash } from 'node:crypto';
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
  /** Attempts from one client address: 20, then one every 6 s. */
  perClient: Bucket;
  /** Sign-ups from one client address: 10, then one a minute. */
  signUpsPerClient: Bucket;
}

export const DEFAULT_THROTTLE: ThrottleFigures = {
  perAddress: { burst: 5, perSecond: 1 / 60 },
  perClient: { burst: 20, perSecond: 1 / 6 },
  signUpsPerClient: { burst: 10, perSecond: 1 / 60 },
};

export class SignInThrottle {
  readonly #limiter: RateLimiter;
  readonly #figures: ThrottleFigures;

  constructor(limiter: RateLimiter, figures: ThrottleFigures = DEFAULT_THROTTLE) {
    this.#limiter = limiter;
    this.#figures = figures;
  }

  /** Takes a sign-in attempt for the address from the client; throws 429 when either is spent. */
  async signIn(email: string, clientIp: string): Promise<void> {
    // The address is hashed: bucket names end up in Redis and must not hold personal data.
    const address = createHash('sha256').update(email).digest('base64url');
    const { perAddress, perClient } = this.#figures;
    refuseWhenSpent(await this.#take(`signin:client:${clientIp}`, perClient));
    refuseWhenSpent(await this.#take(`signin:address:${address}`, perAddress));
  }

  /** Takes a sign-up from the client; throws 429 when spent. */
  async signUp(clientIp: string): Promise<void> {
    refuseWhenSpent(await this.#take(`signup:client:${clientIp}`, this.#figures.signUpsPerClient));
  }

  #take(name: string, bucket: Bucket): Promise<RateDecision> {
    return this.#limiter.take(name, bucket.perSecond, bucket.burst);
  }
}

function refuseWhenSpent(decision: RateDecision): void {
  if (decision.allowed) return;
  throw new ApiError('rate_limited', {
    message: 'Too many attempts: wait a little and try again',
    headers: { 'retry-after': decision.retryAfterSeconds },
  });
}
