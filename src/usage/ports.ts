/**
 * Ports of the service layer: rate limiting and the result cache. Memory adapters serve the
 * embedded mode; Redis adapters (scale-out issue) implement the same interfaces.
 */
import type { VerificationResult } from '../verification/report.ts';

/** The outcome of taking one token from a key's bucket. */
export interface RateDecision {
  allowed: boolean;
  /** The plan's rate per second (`RateLimit-Limit`). */
  limit: number;
  /** Whole tokens left after this request (`RateLimit-Remaining`). */
  remaining: number;
  /** Seconds until the bucket is full again (`RateLimit-Reset`), an integer. */
  resetSeconds: number;
  /** When refused: seconds until one token is back (`Retry-After`), at least 1. */
  retryAfterSeconds: number;
}

/** A token bucket per key: refilled at `ratePerSecond`, holding at most twice that (the burst). */
export interface RateLimiter {
  take(keyId: string, ratePerSecond: number): Promise<RateDecision>;
}

/** Results cached per normalized address for MAILVET_RESULT_TTL seconds. */
export interface ResultCache {
  get(address: string): Promise<VerificationResult | undefined>;
  set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void>;
}
