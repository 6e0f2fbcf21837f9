/**
 * A connected integration's audiences, read from the platform each time the card is shown. When the
 * platform refuses the stored key (409) the integration is disconnected, and the card says so;
 * other failures (502: the platform did not answer) stay in this section, with a way to ask again.
 * The audiences come with the integration's watches: a toggle per audience verifies its new
 * subscribers as they arrive (a watch), or stops doing so.
 */
import { useCallback, useEffect, useId, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Audience, Integration, Watch } from '../api/types';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatCount, formatInstant } from '../lib/format';

interface AudiencesProps {
  integration: Integration;
  headingId: string;
  /** The platform refused the credentials: the integration is disconnected, for this reason. */
  onDisconnected: (message: string) => void;
  /** A toggle's request failed (or null when one starts): shown in the card's alert. */
  onProblem: (message: string | null) => void;
}

export function Audiences({ integration, headingId, onDisconnected, onProblem }: AudiencesProps) {
  const [audiences, setAudiences] = useState<Audience[] | null>(null);
  const [watches, setWatches] = useState<Watch[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [attempt, setAttempt] = useState(0);
  const id = integration.id;

  // `attempt` asks again after a failure.
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger, not a value read
  useEffect(() => {
    let current = true;
    setProblem(null);
    const params = { params: { path: { id } } };
    void Promise.all([
      settle(api.GET('/api/v1/integrations/{id}/audiences', params)),
      settle(api.GET('/api/v1/integrations/{id}/watches', params)),
    ]).then(([listed, watched]) => {
      if (!current) return;
      const failed = !listed.ok ? listed : !watched.ok ? watched : null;
      if (failed === null) {
        setWatches(watched.ok ? watched.data.watches : []);
        return setAudiences(listed.ok ? listed.data.audiences : []);
      }
      if (failed.status === 409) return onDisconnected(failed.problem.message);
      setProblem(failed.problem);
    });
    return () => {
      current = false;
    };
  }, [id, attempt, onDisconnected]);

  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  const helpId = useId();

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
        <AudiencesTable
          integrationId={id}
          audiences={audiences}
          watches={watches}
          onWatches={setWatches}
          onProblem={onProblem}
          helpId={helpId}
          label={`Audiences of ${integration.account_name}`}
        />
      )}
      <p id={helpId} className="muted small">
        New subscribers: when on, each new subscriber is verified as they arrive, and counts against your
        monthly quota.
      </p>
      <p className="muted small">
        Validating an audience, and writing the results back to Mailchimp, comes next; until then, export it
        as CSV and upload it on the Lists page.
      </p>
    </section>
  );
}

interface AudiencesTableProps {
  integrationId: string;
  audiences: readonly Audience[];
  watches: readonly Watch[];
  onWatches: (update: (watches: Watch[]) => Watch[]) => void;
  onProblem: (message: string | null) => void;
  helpId: string;
  label: string;
}

function AudiencesTable({ audiences, label, ...toggle }: AudiencesTableProps) {
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
            <th scope="col">New subscribers</th>
          </tr>
        </thead>
        <tbody>
          {audiences.map((audience) => (
            <tr key={audience.id}>
              <th scope="row">{audience.name}</th>
              <td className="number">{formatCount(audience.member_count)}</td>
              <td>{lastRun(audience.last_run)}</td>
              <td>
                <WatchToggle audience={audience} {...toggle} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/**
 * Verifies the audience's new subscribers (a watch) or stops. The box changes at once and is disabled
 * while the request runs; on failure it goes back to the watch as the API has it.
 */
function WatchToggle({
  integrationId,
  audience,
  watches,
  onWatches,
  onProblem,
  helpId,
}: Omit<AudiencesTableProps, 'audiences' | 'label'> & { audience: Audience }) {
  /** The state asked for while its request runs, else null. */
  const [pending, setPending] = useState<boolean | null>(null);
  const watch = watches.find((each) => each.audience_id === audience.id);
  const busy = pending !== null;

  const toggle = async () => {
    setPending(watch === undefined);
    onProblem(null);
    if (watch === undefined) {
      const outcome = await settle(
        api.POST('/api/v1/integrations/{id}/watches', {
          params: { path: { id: integrationId } },
          body: { audience_id: audience.id },
        }),
      );
      if (outcome.ok) onWatches((current) => [...current, outcome.data]);
      else onProblem(outcome.problem.message);
    } else {
      const outcome = await settle(
        api.DELETE('/api/v1/integrations/{id}/watches/{watchId}', {
          params: { path: { id: integrationId, watchId: watch.id } },
        }),
      );
      if (outcome.ok || outcome.status === 404) {
        onWatches((current) => current.filter((each) => each.id !== watch.id));
      } else onProblem(outcome.problem.message);
    }
    setPending(null);
  };

  return (
    <input
      type="checkbox"
      aria-label={`Verify new subscribers of ${audience.name}`}
      aria-describedby={helpId}
      checked={pending ?? watch !== undefined}
      disabled={busy}
      aria-busy={busy}
      onChange={() => void toggle()}
    />
  );
}

/** The audience's latest run in words: when it finished (or started), or "Never". */
function lastRun(run: Audience['last_run']): string {
  if (run === null) return 'Never';
  const when = run.finished_at ?? run.created_at;
  return typeof when === 'string' ? formatInstant(when) : 'Unknown';
}
