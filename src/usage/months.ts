/**
 * Calendar months in UTC: quotas count per month and reset at its end.
 */

/** A month of usage, `YYYY-MM` in UTC. */
export type UsageMonth = string;

// The month of the last instant asked, and its bounds: every request asks, and formatting a date
// each time showed in the API's profile.
let known = { month: '', fromMs: 0, untilMs: -1 };

/** `YYYY-MM` of the instant, in UTC. */
export function monthOf(now: Date): UsageMonth {
  const ms = now.getTime();
  if (ms >= known.fromMs && ms < known.untilMs) return known.month;
  const month = now.toISOString().slice(0, 7);
  const fromMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  known = { month, fromMs, untilMs: nextMonthStart(now).getTime() };
  return month;
}

/** The first instant of the month after the given one, in UTC. */
export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
