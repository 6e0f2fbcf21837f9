/**
 * Why a running list stands still: its rows left wait for a re-check (the API's `rechecks`). A
 * greylisting server asks senders to come back later, and a server that did not answer gets another
 * try, so the list holds those rows until then rather than finishing on a non-answer.
 */
import type { List } from '../api/types';
import { formatCount, formatInstant } from '../lib/format';

const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** "at 21:40" today, else the day and time; "now" once it is due (waiting for a free worker). */
function when(iso: string, now: Date): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return `at ${iso}`;
  if (at.getTime() <= now.getTime()) return 'now';
  return at.toDateString() === now.toDateString() ? `at ${timeOfDay.format(at)}` : `at ${formatInstant(iso)}`;
}

export function RecheckNote({ list }: { list: List }) {
  if (list.rechecks === null) return null;
  const { pending, next_at: nextAt } = list.rechecks;
  const rows = pending === 1 ? '1 row waits' : `${formatCount(pending)} rows wait`;
  return (
    <p className="alert alert-warn recheck-note">
      {rows} for a re-check {when(nextAt, new Date())}: greylisting servers ask senders to retry later, and
      servers that did not answer get another try before the list completes.
    </p>
  );
}
