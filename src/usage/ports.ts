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

/** Whose use a charge counts: the account (its quota) and the key it came through (its cap). */
export interface UsageOwner {
  accountId: string;
  keyId: string;
}

/** The most a month may count: the account's figure, and the key's own cap (null: none). */
export interface Ceiling {
  account: number;
  key: number | null;
}

/** A month's count after a charge: the account's and the key's. */
export interface Used {
  account: number;
  key: number;
}

/** One day's figures of one key, added to what the day has (`GET /api/v1/usage`). */
export interface DailyUsage {
  accountId: string;
  keyId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** A verification status (charged verifications), `list_rows` or `bulk_requests`. */
  metric: string;
  count: number;
}

export interface UsageStore {
  /**
   * Charges up to `requested` verifications for the month without passing either ceiling, in
   * atomic conditional updates (never read-then-write): concurrent callers never overspend the
   * account's quota or the key's cap. Returns how many were granted (0..requested) and the
   * month's counts after the charge.
   */
  chargeVerifications(
    owner: UsageOwner,
    month: UsageMonth,
    requested: number,
    ceiling: Ceiling,
  ): Promise<{ granted: number; used: Used }>;
  /** Gives back units (a `dns_error` result is not charged). Never goes below zero. */
  refundVerifications(owner: UsageOwner, month: UsageMonth, count: number): Promise<void>;
  /** Charges one bulk request when both ceilings allow it; atomic like the above. */
  chargeBulkRequest(
    owner: UsageOwner,
    month: UsageMonth,
    ceiling: Ceiling,
  ): Promise<{ granted: boolean; used: Used }>;
  /** Gives back one bulk request (the request was refused after all). */
  refundBulkRequest(owner: UsageOwner, month: UsageMonth): Promise<void>;
  /** The month's counts of the account and of the key. */
  usage(owner: UsageOwner, month: UsageMonth): Promise<{ account: Usage; key: Usage }>;
  /** The month's counts of every key of the account, by key id (keys without use are absent). */
  keyUsages(accountId: string, month: UsageMonth): Promise<Map<string, Usage>>;
  /** Adds to the daily figures. */
  addDailyUsage(entries: readonly DailyUsage[]): Promise<void>;
  /** The account's daily figures from `from` to `to` (inclusive, `YYYY-MM-DD`). */
  dailyUsage(accountId: string, from: string, to: string): Promise<DailyUsage[]>;
}

/** The outcome of taking one token from a bucket. */
export interface RateDecision {
  allowed: boolean;
  /** The bucket's rate per second (`RateLimit-Limit`). */
  limit: number;
  /** Whole tokens left after this request (`RateLimit-Remaining`). */
  remaining: number;
  /** Seconds until the bucket is full again (`RateLimit-Reset`), an integer. */
  resetSeconds: number;
  /** When refused: seconds until one token is back (`Retry-After`), at least 1. */
  retryAfterSeconds: number;
}

/**
 * A token bucket per name (an account, a key, a sign-in address): refilled at `ratePerSecond`,
 * holding at most `burst` (default twice the rate).
 */
export interface RateLimiter {
  take(bucket: string, ratePerSecond: number, burst?: number): Promise<RateDecision>;
  /** The same, answered at once, by a limiter that keeps its buckets in this process. */
  takeNow?(bucket: string, ratePerSecond: number, burst?: number): RateDecision;
}

/** Results cached per normalized address for MAILVET_RESULT_TTL seconds. */
export interface ResultCache {
  get(address: string): Promise<VerificationResult | undefined>;
  set(address: string, result: VerificationResult, ttlSeconds: number): Promise<void>;
  /** Forgets the address's result (an erasure); true when one was kept. */
  delete(address: string): Promise<boolean>;
}
