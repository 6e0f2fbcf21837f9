/**
 * Cron expressions of schedules, read by croner in an IANA time zone: five fields (minute hour
 * day-of-month month day-of-week, Vixie cron's day rule) or a nickname. Croner would also take a
 * seconds field; schedules start runs of whole audiences, so minutes are the finest step.
 */
import { Cron } from 'croner';

/** The nicknames croner knows. */
const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);

export type CronCheck =
  | { kind: 'ok'; cron: string; timezone: string }
  | { kind: 'invalid'; field: 'cron' | 'timezone'; message: string };

/** Checks an expression and a time zone; the trimmed forms when both are good. */
export function checkCron(expression: string, timezone: string): CronCheck {
  const zone = timezone.trim();
  if (!isTimeZone(zone)) {
    return {
      kind: 'invalid',
      field: 'timezone',
      message: `Unknown time zone "${timezone}": use an IANA name such as UTC or Europe/Paris`,
    };
  }
  const cron = expression.trim().split(/\s+/).join(' ');
  const fields = cron.split(' ').length;
  if (!(cron.startsWith('@') ? NICKNAMES.has(cron.toLowerCase()) : fields === 5)) {
    return {
      kind: 'invalid',
      field: 'cron',
      message:
        'A cron expression has five fields (minute hour day-of-month month day-of-week), as "0 3 * * 1"',
    };
  }
  let job: Cron;
  try {
    job = new Cron(cron, { timezone: zone, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return { kind: 'invalid', field: 'cron', message: `Not a valid cron expression: ${reason}` };
  }
  if (job.nextRun() === null) {
    return { kind: 'invalid', field: 'cron', message: 'The cron expression matches no date to come' };
  }
  return { kind: 'ok', cron, timezone: zone };
}

/**
 * The first slot of the expression strictly after `from`, as an ISO instant; null when it matches
 * none (or is not valid: stored schedules were checked when saved).
 */
export function nextSlot(expression: string, timezone: string, from: Date): string | null {
  try {
    return new Cron(expression, { timezone, paused: true }).nextRun(from)?.toISOString() ?? null;
  } catch {
    return null;
  }
}

function isTimeZone(zone: string): boolean {
  // An offset such as "+01:00" is no zone: its clock would not follow the place's summer time.
  if (zone === '' || /^[+-]|:/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
