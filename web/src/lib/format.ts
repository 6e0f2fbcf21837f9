/** Numbers, dates and sizes as people read them, in the browser's locale. */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dayOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function formatCount(value: number): string {
  return integer.format(value);
}

/** A ratio from 0 to 1 as a percentage. */
export function formatPercent(ratio: number): string {
  return percent.format(ratio);
}

/** An ISO instant, or `fallback` when there is none. */
export function formatInstant(iso: string | null | undefined, fallback = 'Never'): string {
  if (iso === null || iso === undefined) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A calendar day `YYYY-MM-DD` (UTC, as usage is counted). */
export function formatDay(day: string, short = false): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return (short ? shortDay : dayOnly).format(date);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
