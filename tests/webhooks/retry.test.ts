/** The webhook retry schedule (docs/webhooks.md): ×4 from the base, capped at 6 h, 8 attempts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  nextAttemptDelayMs,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_MAX_DELAY_MS,
  WEBHOOK_RETRY_BASE_MS,
} from '../../src/webhooks/retry.ts';

const minute = 60_000;

describe('nextAttemptDelayMs', () => {
  it('follows the documented schedule with the default base, then gives up', () => {
    assert.equal(WEBHOOK_RETRY_BASE_MS, minute);
    assert.equal(WEBHOOK_ATTEMPTS, 8);
    const delays = Array.from({ length: 9 }, (_, i) => nextAttemptDelayMs(i + 1));
    assert.deepEqual(delays, [
      minute,
      4 * minute,
      16 * minute,
      64 * minute,
      256 * minute,
      360 * minute,
      360 * minute,
      null,
      null,
    ]);
  });

  it('scales with the base and never waits more than 6 hours', () => {
    assert.deepEqual(
      [1, 2, 3].map((attempt) => nextAttemptDelayMs(attempt, 50)),
      [50, 200, 800],
    );
    assert.equal(nextAttemptDelayMs(2, 86_400_000), WEBHOOK_MAX_DELAY_MS);
    assert.equal(nextAttemptDelayMs(999, minute, 10_000), WEBHOOK_MAX_DELAY_MS);
  });

  it('takes the number of attempts', () => {
    assert.equal(nextAttemptDelayMs(2, minute, 3), 4 * minute);
    assert.equal(nextAttemptDelayMs(3, minute, 3), null);
    assert.equal(nextAttemptDelayMs(1, minute, 1), null);
  });

  it('refuses attempts and bases that are bugs', () => {
    for (const attempt of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => nextAttemptDelayMs(attempt, minute), RangeError, String(attempt));
    }
    for (const base of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => nextAttemptDelayMs(1, base), RangeError, String(base));
    }
  });
});
