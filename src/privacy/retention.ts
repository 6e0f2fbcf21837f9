/**
 * Retention: a finished list's rows and results are deleted `retention_days` after it finished.
 * The days are the account's own setting, else the server's default (MAILVET_RETENTION_DAYS),
 * never more than its plan's maximum; 0 keeps them (when the plan has no maximum). The list record
 * stays with its counts and says its results expired; a download then answers 410.
 */

import type { Plan } from '../accounts/plans.ts';
import { storageLimits } from '../accounts/plans.ts';

/** A plan's most days an account may keep results; 0: no maximum. */
export function planMaxRetentionDays(plan: Plan | undefined): number {
  return storageLimits(plan).retentionDays;
}

/**
 * The days an account's finished lists keep their results: its setting (null: `defaultDays`),
 * capped by the plan's maximum when there is one. 0: kept.
 */
export function retentionDaysOf(
  setting: number | null | undefined,
  defaultDays: number,
  planMax: number,
): number {
  const days = setting ?? defaultDays;
  if (planMax <= 0) return days;
  return days === 0 ? planMax : Math.min(days, planMax);
}

/** Why a requested setting is refused; null when the plan allows it. */
export function retentionRefusal(days: number, planMax: number): string | null {
  if (planMax <= 0) return null;
  if (days === 0) return `Your plan keeps results at most ${planMax} days: 0 (keep) is not available`;
  if (days > planMax) return `Your plan keeps results at most ${planMax} days`;
  return null;
}
