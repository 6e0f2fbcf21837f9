import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILT_IN_PLANS, effectiveLimits, parsePlans, storageLimits } from '../../src/accounts/plans.ts';

describe('plans', () => {
  it('has the built-in plans docs/api.md lists', () => {
    assert.deepEqual(BUILT_IN_PLANS.free, {
      name: 'free',
      monthlyVerifications: 1000,
      monthlyBulkRequests: 10,
      ratePerSecond: 5,
      maxRunningLists: 1,
      maxStoredRows: 100_000,
      maxUnfinishedLists: 3,
      retentionDays: 30,
      maxFeedbackEvents: 10_000,
    });
    assert.deepEqual(BUILT_IN_PLANS.starter, {
      name: 'starter',
      monthlyVerifications: 25000,
      monthlyBulkRequests: 500,
      ratePerSecond: 20,
      maxRunningLists: 2,
      maxStoredRows: 2_000_000,
      maxUnfinishedLists: 10,
      retentionDays: 30,
      maxFeedbackEvents: 100_000,
    });
    assert.deepEqual(BUILT_IN_PLANS.pro, {
      name: 'pro',
      monthlyVerifications: 250000,
      monthlyBulkRequests: 10000,
      ratePerSecond: 50,
      maxRunningLists: 4,
      maxStoredRows: 20_000_000,
      maxUnfinishedLists: 50,
      retentionDays: 30,
      maxFeedbackEvents: 1_000_000,
    });
  });

  it('reads a plans file', () => {
    const plans = parsePlans(
      JSON.stringify({
        free: { monthly_verifications: 10, monthly_bulk_requests: 1, rate_limit_per_second: 1 },
        team: { monthly_verifications: 5000, monthly_bulk_requests: 50, rate_limit_per_second: 10 },
        big: {
          monthly_verifications: 1,
          monthly_bulk_requests: 1,
          rate_limit_per_second: 1,
          max_running_lists: 9,
          max_stored_rows: 500,
          max_unfinished_lists: 4,
          retention_days: 7,
          max_feedback_events: 250,
        },
      }),
    );
    assert.equal(plans.big?.maxRunningLists, 9);
    const none = { monthlyQuota: null, bulkQuota: null, rateLimit: null };
    assert.equal(effectiveLimits(plans, 'big', none).maxFeedbackEvents, 250);
    // Without the figure, the default.
    assert.equal(effectiveLimits(plans, 'team', none).maxFeedbackEvents, 100_000);
    assert.deepEqual(storageLimits(plans.big), {
      maxStoredRows: 500,
      maxUnfinishedLists: 4,
      retentionDays: 7,
    });
    // Without the figures, the defaults.
    assert.deepEqual(storageLimits(plans.team), {
      maxStoredRows: 2_000_000,
      maxUnfinishedLists: 10,
      retentionDays: 30,
    });
    // Without the figure, a plan's lists run two at a time.
    assert.equal(
      effectiveLimits(plans, 'team', { monthlyQuota: null, bulkQuota: null, rateLimit: null })
        .maxRunningLists,
      2,
    );
    assert.deepEqual(plans.team, {
      name: 'team',
      monthlyVerifications: 5000,
      monthlyBulkRequests: 50,
      ratePerSecond: 10,
    });
  });

  it('names what is wrong in a bad plans file', () => {
    assert.throws(() => parsePlans('{'), /not JSON/);
    assert.throws(
      () =>
        parsePlans(
          '{"team": {"monthly_verifications": 1, "monthly_bulk_requests": 1, "rate_limit_per_second": 1}}',
        ),
      /free/,
    );
    assert.throws(
      () =>
        parsePlans(
          '{"free": {"monthly_verifications": -1, "monthly_bulk_requests": 1, "rate_limit_per_second": 1}}',
        ),
      /free\.monthly_verifications/,
    );
    // In words, not zod's bare "Invalid input" (its functional build has no messages of its own).
    assert.throws(
      () =>
        parsePlans(
          '{"free": {"monthly_verifications": 1.5, "monthly_bulk_requests": 1, "rate_limit_per_second": 0}}',
        ),
      /free\.monthly_verifications: Invalid input: expected int, received number; free\.rate_limit_per_second: Too small: expected number to be >=1/,
    );
  });

  it('applies per-key overrides over the plan, and falls back to free for an unknown plan', () => {
    const limits = effectiveLimits(BUILT_IN_PLANS, 'pro', { monthlyQuota: 7, bulkQuota: null, rateLimit: 2 });
    assert.deepEqual(limits, {
      name: 'pro',
      monthlyVerifications: 7,
      monthlyBulkRequests: 10000,
      ratePerSecond: 2,
      maxRunningLists: 4,
      maxStoredRows: 20_000_000,
      maxUnfinishedLists: 50,
      retentionDays: 30,
      maxFeedbackEvents: 1_000_000,
    });
    assert.equal(
      effectiveLimits(BUILT_IN_PLANS, 'gone', { monthlyQuota: null, bulkQuota: null, rateLimit: null }).name,
      'free',
    );
  });
});
