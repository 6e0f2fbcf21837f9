/**
 * When a failed webhook is tried again: `base`, then 4 times longer each time, capped at 6 hours,
 * 8 attempts in all. With the default base of one minute: 1 m, 4 m, 16 m, 64 m, 4 h 16 m, 6 h, 6 h
 * — about 18 hours before a receiver that stays down is given up on. Deterministic (no jitter):
 * each list has its own event, so there is no herd of identical retries to spread out, and a
 * fixed schedule is one that can be documented and tested.
 */

/** Attempts in all, the first included. */
export const WEBHOOK_ATTEMPTS = 8;
/** The first wait, by default (MAILVET_WEBHOOK_RETRY_MS), ms. */
export const WEBHOOK_RETRY_BASE_MS = 60_000;
/** The longest wait between two attempts, ms. */
export const WEBHOOK_MAX_DELAY_MS = 6 * 60 * 60 * 1000;

/**
 * Wait after failed attempt `attempt` (1-based) before the next one, ms: `baseMs × 4^(attempt-1)`,
 * at most 6 hours; null when `attempt` was the last of `attempts`.
 *
 * @throws RangeError for an attempt that is not a positive integer or a base that is not positive
 */
export function nextAttemptDelayMs(
  attempt: number,
  baseMs: number = WEBHOOK_RETRY_BASE_MS,
  attempts: number = WEBHOOK_ATTEMPTS,
): number | null {
  if (!Number.isSafeInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be 1 or more: ${attempt}`);
  if (!(baseMs > 0) || !Number.isFinite(baseMs)) throw new RangeError(`baseMs must be positive: ${baseMs}`);
  if (attempt >= attempts) return null;
  // 4 ** 30 is far past the cap already; the min keeps huge exponents from reaching Infinity math.
  return Math.min(WEBHOOK_MAX_DELAY_MS, baseMs * 4 ** Math.min(attempt - 1, 30));
}
