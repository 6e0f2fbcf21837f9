/**
 * Ports of metering: the usage counters (in the store: SQLite or PostgreSQL), rate limiting and the
 * result cache (memory embedded, Redis in scale-out, behind the same interfaces).
 */
import type { VerificationResult } from '../verification/report.ts';
import type { UsageMonth } from './months.ts';

export interface Usage {
  verifications: number;
  bulkRequests: number;
}

export interface UsageStore {
  /**
   * Charges up to `requested` verifications for the key's month without passing `limit`, in one
   * atomic conditional update (never read-then-write): concurrent callers never overspend.
   * Returns how many were granted (0..requested) and the month's usage after the charge.
   */
  chargeVerifications(
    keyId: string,
    month: UsageMonth,
    requested: number,
    limit: number,
  ): Promise<{ granted: number; used: number }>;
  /** Gives back units (a `dns_error` result is not charged). Never goes below zero. */
  refundVerifications(keyId: string, month: UsageMonth, count: number): Promise<void>;
  /** Charges one bulk request if the month's bulk count is below `limit`; atomic like the above. */
  chargeBulkRequest(
    keyId: string,
    month: UsageMonth,
    limit: number,
  ): Promise<{ granted: boolean; used: number }>;
  /** Gives back one bulk request (the request was refused after all). */
  refundBulkRequest(keyId: string, month: UsageMonth): Promise<void>;
  usage(keyId: string, month: UsageMonth): Promise<Usage>;
}

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
