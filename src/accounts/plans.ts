/**
 * Plans: monthly verification and bulk-request quotas and a per-second rate. Built-in
 * plans can be replaced by a JSON file (MAILVET_PLANS); a key may override its plan's figures.
 */
import * as z from 'zod/mini';
import '../zod-messages.ts';
import type { Figures } from './ports.ts';

/** A plan's figures. */
export interface Plan {
  name: string;
  monthlyVerifications: number;
  monthlyBulkRequests: number;
  ratePerSecond: number;
  /** Lists of one account worked on at once, across every worker (others wait their turn). */
  maxRunningLists?: number;
  /** Rows an account may keep stored across its lists (an upload past it is refused, 413). */
  maxStoredRows?: number;
  /** Lists of an account not yet finished (uploading, queued, running, paused); one more is 429. */
  maxUnfinishedLists?: number;
  /** Days a finished list (completed, cancelled, failed) is kept; then it is deleted. */
  retentionDays?: number;
  /** Sender feedback events an account may keep stored (a request past it is refused, 413). */
  maxFeedbackEvents?: number;
}

/** The figures for a plan that does not say (a plans file without them). */
export const DEFAULT_MAX_RUNNING_LISTS = 2;
export const DEFAULT_MAX_STORED_ROWS = 2_000_000;
export const DEFAULT_MAX_UNFINISHED_LISTS = 10;
export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_MAX_FEEDBACK_EVENTS = 100_000;

/** A plan's list-storage figures, defaults filled in. */
export function storageLimits(
  plan: Pick<Plan, 'maxStoredRows' | 'maxUnfinishedLists' | 'retentionDays'> | undefined,
): {
  maxStoredRows: number;
  maxUnfinishedLists: number;
  retentionDays: number;
} {
  return {
    maxStoredRows: plan?.maxStoredRows ?? DEFAULT_MAX_STORED_ROWS,
    maxUnfinishedLists: plan?.maxUnfinishedLists ?? DEFAULT_MAX_UNFINISHED_LISTS,
    retentionDays: plan?.retentionDays ?? DEFAULT_RETENTION_DAYS,
  };
}

/** The built-in plans. */
export const BUILT_IN_PLANS: Readonly<Record<string, Plan>> = Object.freeze({
  free: {
    name: 'free',
    monthlyVerifications: 1_000,
    monthlyBulkRequests: 10,
    ratePerSecond: 5,
    maxRunningLists: 1,
    maxStoredRows: 100_000,
    maxUnfinishedLists: 3,
    retentionDays: 30,
    maxFeedbackEvents: 10_000,
  },
  starter: {
    name: 'starter',
    monthlyVerifications: 25_000,
    monthlyBulkRequests: 500,
    ratePerSecond: 20,
    maxRunningLists: 2,
    maxStoredRows: 2_000_000,
    maxUnfinishedLists: 10,
    retentionDays: 30,
    maxFeedbackEvents: 100_000,
  },
  pro: {
    name: 'pro',
    monthlyVerifications: 250_000,
    monthlyBulkRequests: 10_000,
    ratePerSecond: 50,
    maxRunningLists: 4,
    maxStoredRows: 20_000_000,
    maxUnfinishedLists: 50,
    retentionDays: 30,
    maxFeedbackEvents: 1_000_000,
  },
});

/**
 * The plan every plans file has: MAILVET_DEFAULT_PLAN's default (the plan new accounts get), and
 * the figures of an account whose plan is no longer offered.
 */
export const DEFAULT_PLAN = 'free';

const whole = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));
const count = whole(0, Number.MAX_SAFE_INTEGER);

/** The MAILVET_PLANS file: `{"name": {"monthly_verifications", "monthly_bulk_requests", "rate_limit_per_second"}}`. */
export const plansFileSchema = z
  .record(
    z.string().check(z.regex(/^[a-z0-9_-]{1,40}$/, 'plan names are 1-40 of a-z 0-9 _ -')),
    z.object({
      monthly_verifications: count,
      monthly_bulk_requests: count,
      rate_limit_per_second: whole(1, 100_000),
      max_running_lists: z.optional(whole(1, 1_000)),
      max_stored_rows: z.optional(whole(1, Number.MAX_SAFE_INTEGER)),
      max_unfinished_lists: z.optional(whole(1, 100_000)),
      retention_days: z.optional(whole(1, 3650)),
      max_feedback_events: z.optional(whole(0, 1_000_000_000)),
    }),
  )
  .check(
    z.refine((plans) => Object.keys(plans).length > 0, 'at least one plan'),
    z.refine(
      (plans) => DEFAULT_PLAN in plans,
      `a "${DEFAULT_PLAN}" plan (accounts whose plan is gone use its figures)`,
    ),
  );

/** Parses a plans file's JSON text; throws an Error naming what is wrong. */
export function parsePlans(text: string): Record<string, Plan> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = plansFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '),
    );
  }
  return Object.fromEntries(
    Object.entries(parsed.data).map(([name, plan]) => [
      name,
      {
        name,
        monthlyVerifications: plan.monthly_verifications,
        monthlyBulkRequests: plan.monthly_bulk_requests,
        ratePerSecond: plan.rate_limit_per_second,
        ...(plan.max_running_lists !== undefined && { maxRunningLists: plan.max_running_lists }),
        ...(plan.max_stored_rows !== undefined && { maxStoredRows: plan.max_stored_rows }),
        ...(plan.max_unfinished_lists !== undefined && { maxUnfinishedLists: plan.max_unfinished_lists }),
        ...(plan.retention_days !== undefined && { retentionDays: plan.retention_days }),
        ...(plan.max_feedback_events !== undefined && { maxFeedbackEvents: plan.max_feedback_events }),
      },
    ]),
  );
}

/** An account's overrides of its plan's figures; null keeps the plan's. */
export type PlanOverrides = Figures;

/** The figures that apply to an account: its plan's, with its overrides, every default filled in. Unknown plans fall back to free. */
export function effectiveLimits(
  plans: Readonly<Record<string, Plan>>,
  planName: string,
  overrides: PlanOverrides,
): Required<Plan> {
  const plan = plans[planName] ?? plans[DEFAULT_PLAN] ?? BUILT_IN_PLANS.free!;
  return {
    name: plan.name,
    monthlyVerifications: overrides.monthlyQuota ?? plan.monthlyVerifications,
    monthlyBulkRequests: overrides.bulkQuota ?? plan.monthlyBulkRequests,
    ratePerSecond: overrides.rateLimit ?? plan.ratePerSecond,
    maxRunningLists: plan.maxRunningLists ?? DEFAULT_MAX_RUNNING_LISTS,
    maxFeedbackEvents: plan.maxFeedbackEvents ?? DEFAULT_MAX_FEEDBACK_EVENTS,
    ...storageLimits(plan),
  };
}
