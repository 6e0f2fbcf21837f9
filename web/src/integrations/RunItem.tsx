/**
 * One run: its audience, state, who started it and what it writes; a progress bar while it goes;
 * its counts; Cancel while it has not ended; and its results, which are a list's (downloads there),
 * until the account's retention deletes them with the list's.
 */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Run } from '../api/types';
import { Gauge } from '../components/Gauge';
import { countWords } from '../lib/count-words';
import { formatCount, formatInstant } from '../lib/format';
import { capitalized, usePlatform } from './platform';
import { scopeLabel } from './run-settings';
import { isActive, isUnfinished, RUN_STATE_LABELS, runProgress, TRIGGER_LABELS } from './runs';

interface RunItemProps {
  run: Run;
  onChange: (run: Run) => void;
}

const COUNTS: ReadonlyArray<[keyof Run['counts'], string]> = [
  ['members', 'Members'],
  ['verified', 'Verified'],
  ['valid', 'Valid'],
  ['risky', 'Risky'],
  ['invalid', 'Invalid'],
  ['written', 'Written back'],
  ['write_errors', 'Not written'],
];

export function RunItem({ run, onChange }: RunItemProps) {
  const platform = usePlatform();
  const id = useId();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const progress = runProgress(run);
  const path = { params: { path: { id: run.integration_id, runId: run.id } } };

  const cancel = async () => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    const outcome = await settle(api.POST('/api/v1/integrations/{id}/runs/{runId}/cancel', path));
    setBusy(false);
    if (outcome.ok) return onChange(outcome.data);
    setProblem(outcome.problem.message);
    // The run may have ended meanwhile: show where it is now.
    const fresh = await settle(api.GET('/api/v1/integrations/{id}/runs/{runId}', path));
    if (fresh.ok) onChange(fresh.data);
  };

  return (
    <article className="run" aria-labelledby={`${id}-name`}>
      <div className="list-head">
        <h5 id={`${id}-name`}>
          {run.audience_name}, {formatInstant(run.created_at)}
        </h5>
        <span className={`state state-${run.state}`}>{RUN_STATE_LABELS[run.state]}</span>
      </div>
      <p className="muted small">
        {TRIGGER_LABELS[run.trigger]}. {scopeLabel(run.scope, platform.members)}
        {run.scope === 'stale' && ` (${countWords(run.stale_days, 'day', 'days')})`},{' '}
        {run.statuses.join(', ')}.{' '}
        {run.write_back === null
          ? `Dry run: nothing written to ${platform.label}.`
          : writesWords(run.write_back)}
        {run.finished_at !== null && ` Finished ${formatInstant(run.finished_at)}.`}
      </p>
      {isUnfinished(run) && (
        <div className="list-progress">
          {isActive(run) && (
            <Gauge
              kind="progressbar"
              label={`Run of ${run.audience_name}`}
              value={progress.percent}
              max={100}
              valueText={`${RUN_STATE_LABELS[run.state]}: ${progress.words}`}
            />
          )}
          <p className="muted">
            {RUN_STATE_LABELS[run.state]}: {progress.words}
          </p>
        </div>
      )}
      <dl className="counts">
        {COUNTS.filter(
          ([key]) => run.write_back !== null || (key !== 'written' && key !== 'write_errors'),
        ).map(([key, label]) => (
          <div key={key}>
            <dt>{key === 'members' ? capitalized(platform.members) : label}</dt>
            <dd>{formatCount(run.counts[key])}</dd>
          </div>
        ))}
      </dl>
      {run.message !== null && <p className="alert alert-warn">{run.message}</p>}
      <div className="actions">
        {isUnfinished(run) && (
          <button type="button" className="button" aria-disabled={busy} onClick={cancel}>
            Cancel
          </button>
        )}
        {run.list_id !== null && !run.results_expired && (
          <Link to={`/lists/${encodeURIComponent(run.list_id)}`}>Results</Link>
        )}
      </div>
      {run.results_expired && (
        <p className="muted">
          Its results were deleted
          {run.results_expired_at !== null && ` on ${formatInstant(run.results_expired_at)}`} at the end of
          the account’s retention; the counts above stay.
        </p>
      )}
      {problem !== null && (
        <p role="alert" className="alert alert-error">
          {problem}
        </p>
      )}
    </article>
  );
}

/** What a run writes back, in words. */
function writesWords(writeBack: NonNullable<Run['write_back']>): string {
  const parts = [
    writeBack.fields && 'fields',
    writeBack.tags && 'tags',
    writeBack.segments && 'segments',
  ].filter((part): part is string => typeof part === 'string');
  const writes = parts.length === 0 ? 'Writes nothing back.' : `Writes back ${parts.join(', ')}.`;
  return writeBack.unsubscribe_invalid ? `${writes} Unsubscribes invalid contacts.` : writes;
}
