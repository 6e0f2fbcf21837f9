/**
 * A connected integration's audiences (HubSpot's lists; read by use-audiences): members, the last
 * run, a toggle that verifies new subscribers (new contacts) as they arrive (a watch), and
 * "Validate now", which opens the run form. Every word is the platform's (platform.tsx).
 */
import { useId, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Audience, Integration, Run, Watch } from '../api/types';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatCount } from '../lib/format';
import { capitalized, usePlatform, withGrantHint } from './platform';
import { lastRunWords } from './runs';
import type { AudiencesState } from './use-audiences';

interface AudiencesProps {
  integration: Integration;
  headingId: string;
  state: AudiencesState;
  /** The audience's latest run the page knows of (its own runs are fresher than the list's). */
  lastRunOf: (audience: Audience) => Run | null;
  onValidate: (audience: Audience) => void;
  /** A toggle's request failed (or null when one starts): shown in the card's alert. */
  onProblem: (message: string | null) => void;
}

export function Audiences({
  integration,
  headingId,
  state,
  lastRunOf,
  onValidate,
  onProblem,
}: AudiencesProps) {
  const platform = usePlatform();
  const { audiences, watches, setWatches, problem, retry } = state;
  const helpId = useId();

  return (
    <section aria-labelledby={headingId} className="audiences">
      <h4 id={headingId}>{platform.audiences}</h4>
      {problem !== null && (
        <div role="alert" className="alert alert-error">
          <p>
            The {platform.audiences.toLowerCase()} could not be read: {problem.message}
          </p>
          <button type="button" className="button" onClick={retry}>
            Try again
          </button>
        </div>
      )}
      {audiences === null && problem === null && (
        <p className="muted">Loading {platform.audiences.toLowerCase()}…</p>
      )}
      {audiences !== null && audiences.length === 0 && <p>{platform.emptyAudiences}</p>}
      {audiences !== null && audiences.length > 0 && (
        <AudiencesTable
          integrationId={integration.id}
          audiences={audiences}
          watches={watches}
          onWatches={setWatches}
          onProblem={onProblem}
          lastRunOf={lastRunOf}
          onValidate={onValidate}
          helpId={helpId}
          label={`${platform.audiences} of ${integration.account_name}`}
        />
      )}
      <p id={helpId} className="muted small">
        {platform.watchHelp}
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
  lastRunOf: (audience: Audience) => Run | null;
  onValidate: (audience: Audience) => void;
  helpId: string;
  label: string;
}

function AudiencesTable({ audiences, label, lastRunOf, onValidate, ...toggle }: AudiencesTableProps) {
  const platform = usePlatform();
  return (
    <ScrollRegion label={label}>
      <table className="audiences-table stacked-on-narrow">
        <thead>
          <tr>
            <th scope="col">{platform.audience}</th>
            <th scope="col" className="number">
              {capitalized(platform.members)}
            </th>
            <th scope="col">Last run</th>
            <th scope="col">{platform.newMembers}</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {audiences.map((audience) => (
            <tr key={audience.id}>
              <th scope="row" className="row-title">
                {audience.name}
              </th>
              <td className="number" data-label={capitalized(platform.members)}>
                {formatCount(audience.member_count)}
              </td>
              <td data-label="Last run">{lastRunWords(lastRunOf(audience))}</td>
              <td data-label={platform.newMembers}>
                <WatchToggle audience={audience} {...toggle} />
              </td>
              <td>
                <button type="button" className="button" onClick={() => onValidate(audience)}>
                  Validate now
                </button>
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
}: Omit<AudiencesTableProps, 'audiences' | 'label' | 'lastRunOf' | 'onValidate'> & { audience: Audience }) {
  const platform = usePlatform();
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
      else onProblem(withGrantHint(outcome.problem, platform).message);
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
      aria-label={platform.watchLabel(audience.name)}
      aria-describedby={helpId}
      checked={pending ?? watch !== undefined}
      disabled={busy}
      aria-busy={busy}
      onChange={() => void toggle()}
    />
  );
}
