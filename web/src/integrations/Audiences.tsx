/**
 * A connected integration's audiences, read from the platform each time the card is shown. When the
 * platform refuses the stored key (409) the integration is disconnected, and the card says so;
 * other failures (502: the platform did not answer) stay in this section, with a way to ask again.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Audience, Integration } from '../api/types';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatCount, formatInstant } from '../lib/format';

interface AudiencesProps {
  integration: Integration;
  headingId: string;
  /** The platform refused the credentials: the integration is disconnected, for this reason. */
  onDisconnected: (message: string) => void;
}

export function Audiences({ integration, headingId, onDisconnected }: AudiencesProps) {
  const [audiences, setAudiences] = useState<Audience[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [attempt, setAttempt] = useState(0);
  const id = integration.id;

  // `attempt` asks again after a failure.
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger, not a value read
  useEffect(() => {
    let current = true;
    setProblem(null);
    void settle(api.GET('/api/v1/integrations/{id}/audiences', { params: { path: { id } } })).then(
      (outcome) => {
        if (!current) return;
        if (outcome.ok) return setAudiences(outcome.data.audiences);
        if (outcome.status === 409) return onDisconnected(outcome.problem.message);
        setProblem(outcome.problem);
      },
    );
    return () => {
      current = false;
    };
  }, [id, attempt, onDisconnected]);

  const retry = useCallback(() => setAttempt((count) => count + 1), []);

  return (
    <section aria-labelledby={headingId} className="audiences">
      <h4 id={headingId}>Audiences</h4>
      {problem !== null && (
        <div role="alert" className="alert alert-error">
          <p>The audiences could not be read: {problem.message}</p>
          <button type="button" className="button" onClick={retry}>
            Try again
          </button>
        </div>
      )}
      {audiences === null && problem === null && <p className="muted">Loading audiences…</p>}
      {audiences !== null && audiences.length === 0 && <p>This Mailchimp account has no audiences yet.</p>}
      {audiences !== null && audiences.length > 0 && (
        <AudiencesTable audiences={audiences} label={`Audiences of ${integration.account_name}`} />
      )}
      <p className="muted small">
        Validating an audience, and writing the results back to Mailchimp, comes next; until then, export it
        as CSV and upload it on the Lists page.
      </p>
    </section>
  );
}

function AudiencesTable({ audiences, label }: { audiences: readonly Audience[]; label: string }) {
  return (
    <ScrollRegion label={label}>
      <table className="audiences-table">
        <thead>
          <tr>
            <th scope="col">Audience</th>
            <th scope="col" className="number">
              Members
            </th>
            <th scope="col">Last run</th>
          </tr>
        </thead>
        <tbody>
          {audiences.map((audience) => (
            <tr key={audience.id}>
              <th scope="row">{audience.name}</th>
              <td className="number">{formatCount(audience.member_count)}</td>
              <td>{lastRun(audience.last_run)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** The audience's latest run in words: when it finished (or started), or "Never". */
function lastRun(run: Audience['last_run']): string {
  if (run === null) return 'Never';
  const when = run.finished_at ?? run.created_at;
  return typeof when === 'string' ? formatInstant(when) : 'Unknown';
}
