/** The integration's runs, newest first, with live progress (see use-runs) and older ones on demand. */
import type { RefObject } from 'react';
import { usePlatform } from './platform';
import { RunItem } from './RunItem';
import type { RunsState } from './use-runs';

interface RunsPanelProps {
  headingId: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
  runs: RunsState;
}

export function RunsPanel({
  headingId,
  headingRef,
  runs: { runs, problem, cursor, loadOlder, put },
}: RunsPanelProps) {
  const platform = usePlatform();
  return (
    <section aria-labelledby={headingId} className="runs">
      <h4 id={headingId} ref={headingRef} tabIndex={-1}>
        Runs
      </h4>
      {problem !== null && (
        <div role="alert" className="alert alert-error">
          The runs could not be loaded: {problem.message}
        </div>
      )}
      {runs === null && problem === null && <p className="muted">Loading runs…</p>}
      {runs !== null && runs.length === 0 && (
        <p className="muted">No runs yet: choose “Validate now” beside {platform.anAudience}.</p>
      )}
      {runs !== null && runs.length > 0 && (
        <ul className="plain cards">
          {runs.map((run) => (
            <li key={run.id}>
              <RunItem run={run} onChange={put} />
            </li>
          ))}
        </ul>
      )}
      {cursor !== null && (
        <button type="button" className="button" onClick={loadOlder}>
          Show older runs
        </button>
      )}
    </section>
  );
}
