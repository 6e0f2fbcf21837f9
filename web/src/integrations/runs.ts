/** What each run state means on screen, and how far a run that is going has got. */
import type { Run, RunState } from '../api/types';
import { countWords } from '../lib/count-words';
import { formatCount, formatInstant } from '../lib/format';

export const RUN_STATE_LABELS: Record<RunState, string> = {
  queued: 'Queued',
  reading: 'Reading members',
  verifying: 'Verifying',
  writing: 'Writing back',
  completed: 'Completed',
  paused: 'Paused',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const TRIGGER_LABELS: Record<Run['trigger'], string> = {
  manual: 'Started by hand',
  schedule: 'Started by a schedule',
};

/** States whose progress moves on its own: polled every second. */
export function isActive(run: Run): boolean {
  return (
    run.state === 'queued' || run.state === 'reading' || run.state === 'verifying' || run.state === 'writing'
  );
}

/** Not ended: active, or paused (a run paused for quota goes on with its list). */
export function isUnfinished(run: Run): boolean {
  return isActive(run) || run.state === 'paused';
}

/**
 * How far the run's current phase is, 0 to 100, with the same in words. Reading has no total to
 * count against (the members are counted as they come), so its bar stays at 0 and the words say
 * how many were read.
 */
export function runProgress(run: Run): { percent: number; words: string } {
  const { members, verified, written, write_errors: writeErrors } = run.counts;
  if (run.state === 'queued') return { percent: 0, words: 'Waiting to start' };
  if (run.state === 'reading')
    return { percent: 0, words: `${countWords(members, 'member', 'members')} read so far` };
  if (run.state === 'writing') {
    const done = written + writeErrors;
    return {
      percent: ratio(done, verified),
      words: `${formatCount(done)} of ${countWords(verified, 'member', 'members')} written back`,
    };
  }
  return {
    percent: ratio(verified, members),
    words: `${formatCount(verified)} of ${countWords(members, 'member', 'members')} verified`,
  };
}

function ratio(done: number, total: number): number {
  return total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
}

/** The run's state and its date, as the audiences table shows the last one. */
export function lastRunWords(run: Run | null): string {
  if (run === null) return 'Never';
  const when = run.finished_at ?? run.started_at ?? run.created_at;
  return `${RUN_STATE_LABELS[run.state]}, ${formatInstant(when)}`;
}
