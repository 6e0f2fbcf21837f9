/**
 * Calendar months in UTC: quotas count per month and reset at its end.
 */

/** A month of usage, `YYYY-MM` in UTC. */
export type UsageMonth = string;

/** `YYYY-MM` of the instant, in UTC. */
export function monthOf(now: Date): UsageMonth {
  return now.toISOString().slice(0, 7);
}

/** The first instant of the month after the given one, in UTC. */
export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
