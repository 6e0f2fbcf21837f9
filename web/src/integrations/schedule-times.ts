/** Cron presets for schedules, and the time zones to choose from (the browser's own first). */

export const CRON_PRESETS: ReadonlyArray<{ cron: string; label: string }> = [
  { cron: '0 3 * * *', label: 'Every day 03:00' },
  { cron: '0 3 * * 1', label: 'Every Monday 03:00' },
  { cron: '0 6 * * 1-5', label: 'Every weekday 06:00' },
  { cron: '0 3 1 * *', label: 'First day of the month 03:00' },
];

/** A preset's words for an expression, or the expression itself. */
export function cronWords(cron: string): string {
  return CRON_PRESETS.find((preset) => preset.cron === cron)?.label ?? cron;
}

/** The browser's time zone: a new schedule's default. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Every IANA zone the browser knows, with UTC, the browser's and `also` (a stored schedule's) among them. */
export function timeZones(also?: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zones = new Set(known);
  for (const zone of ['UTC', browserTimeZone(), also]) if (zone !== undefined) zones.add(zone);
  return [...zones].sort((a, b) => a.localeCompare(b));
}
