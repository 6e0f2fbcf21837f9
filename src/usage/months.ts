/**
 * Calendar months in UTC: quotas count per month and reset at its end.
 */

/** A month of usage, `YYYY-MM` in UTC. */
export type UsageMonth = string;

/** A calendar month's bounds: its name, and its first and its next month's first instants. */
export interface MonthBounds {
  readonly month: UsageMonth;
  readonly fromMs: number;
  readonly untilMs: number;
  /** `untilMs` as ISO-8601 text (the quota's reset, in every API answer's headers). */
  readonly untilText: string;
}

// The month of the last instant asked, and its bounds: every request asks, and formatting a date
// each time showed in the API's profile.
let known: MonthBounds = { month: '', fromMs: 0, untilMs: -1, untilText: '' };

/** The bounds of the instant's month, in UTC. */
export function monthBoundsOf(now: Date): MonthBounds {
  const ms = now.getTime();
  if (ms >= known.fromMs && ms < known.untilMs) return known;
  const until = nextMonthStart(now);
  known = {
    month: now.toISOString().slice(0, 7),
    fromMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    untilMs: until.getTime(),
    untilText: until.toISOString(),
  };
  return known;
}

/** `YYYY-MM` of the instant, in UTC. */
export function monthOf(now: Date): UsageMonth {
  return monthBoundsOf(now).month;
}

/** The first instant of the month after the given one, in UTC. */
export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
