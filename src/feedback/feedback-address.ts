/**
 * What one reported event is, once checked: the address's feedback identity and domain, the
 * event, and its instant. The identity folds case in the local part too: a bounce report carries
 * whatever case the sender's list had, and mailbox hosts that tell case apart are too rare to let
 * `Jane@` escape a bounce recorded for `jane@`.
 */
import { normalizeAddress } from '../verification/checks/normalize.ts';
import { checkSyntax } from '../verification/checks/syntax.ts';
import { FEEDBACK_EVENTS, type FeedbackEvent, type FeedbackRecord } from './ports.ts';

/** How far ahead of our clock an event's `at` may be (clocks disagree a little), ms. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60 * 1000;
/** The earliest `at` accepted: before it, the instant is surely a mistake (and ISO text stops sorting as time). */
export const EARLIEST_AT = '1970-01-01T00:00:00.000Z';

/** An event as submitted (API body or an integration's import). */
export interface SubmittedEvent {
  email: string;
  event: string;
  /** ISO-8601 with a time zone; now when absent. */
  at?: string;
}

/** Why an event was refused: the field at fault and a message in plain words. */
export interface EventProblem {
  field: 'email' | 'event' | 'at';
  message: string;
}

/** The feedback identity and domain of an address; null when it is not a valid address. */
export function feedbackAddressOf(email: string): { address: string; domain: string } | null {
  const normalized = normalizeAddress(email);
  if (normalized.asciiDomain === null || !checkSyntax(normalized).valid) return null;
  const domain = normalized.asciiDomain;
  return { address: `${normalized.localPart}@${domain}`.toLowerCase(), domain };
}

/** Checks one submitted event; the record to store, or what is wrong with it. */
export function checkEvent(submitted: SubmittedEvent, now: Date): FeedbackRecord | EventProblem {
  const identity = feedbackAddressOf(submitted.email);
  if (identity === null) return { field: 'email', message: 'Invalid email format' };
  if (!(FEEDBACK_EVENTS as readonly string[]).includes(submitted.event))
    return { field: 'event', message: `Must be one of: ${FEEDBACK_EVENTS.join(', ')}` };
  const at = submitted.at === undefined ? now.toISOString() : instantOf(submitted.at, now);
  if (at === null) {
    return {
      field: 'at',
      message: 'Must be a date and time (ISO 8601, with a time zone) between 1970 and now',
    };
  }
  return { ...identity, event: submitted.event as FeedbackEvent, at };
}

/** The instant in ISO-8601 UTC with milliseconds; null when unreadable, without a zone, or out of range. */
function instantOf(text: string, now: Date): string | null {
  // A zone is required: a local time would be read in the server's zone, a guess.
  if (text.length > 64 || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text))
    return null;
  // Upper case: RFC 3339 allows `t` and `z`; Date.parse is only required to read `T` and `Z`.
  const ms = Date.parse(text.toUpperCase());
  if (!Number.isFinite(ms) || ms > now.getTime() + MAX_CLOCK_AHEAD_MS || !isCalendarDate(text)) return null;
  const iso = new Date(ms).toISOString();
  return iso < EARLIEST_AT ? null : iso;
}

/** Date.parse rolls a day that does not exist over (February 30 is March 2): refused here instead. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** True when the value is a problem, not a record. */
export function isProblem(value: FeedbackRecord | EventProblem): value is EventProblem {
  return 'field' in value;
}
