/**
 * What a connected integration offers: its audiences (validate one now, watch its new
 * subscribers), its runs with live progress, its schedules, and the pre-campaign check.
 */
import { useRef, useState } from 'react';
import type { Audience, Integration, Run } from '../api/types';
import { FormNotice } from '../components/FormAlert';
import { Audiences } from './Audiences';
import { CampaignCheckForm } from './CampaignCheckForm';
import { usePlatform } from './platform';
import { RunsPanel } from './RunsPanel';
import { SchedulesPanel } from './SchedulesPanel';
import { useAudiences } from './use-audiences';
import { useRuns } from './use-runs';
import { ValidateForm } from './ValidateForm';

interface ConnectedIntegrationProps {
  integration: Integration;
  /** A prefix for the ids of the sections' headings. */
  idBase: string;
  /** The platform refused the credentials: the integration is disconnected, for this reason. */
  onDisconnected: (message: string) => void;
  /** A watch toggle's request failed (or null when one starts): shown in the card's alert. */
  onProblem: (message: string | null) => void;
}

export function ConnectedIntegration({
  integration,
  idBase,
  onDisconnected,
  onProblem,
}: ConnectedIntegrationProps) {
  const platform = usePlatform();
  const audiences = useAudiences(integration.id, onDisconnected);
  const runs = useRuns(integration.id);
  const [validating, setValidating] = useState<Audience | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const runsHeading = useRef<HTMLHeadingElement>(null);

  const lastRunOf = (audience: Audience): Run | null => {
    const known = runs.runs?.find((run) => run.audience_id === audience.id) ?? null;
    const listed = audience.last_run;
    if (known === null || listed === null) return known ?? listed;
    return known.created_at >= listed.created_at ? known : listed;
  };

  const started = (run: Run) => {
    runs.put(run);
    setValidating(null);
    setNotice(
      run.write_back === null
        ? `Dry run of “${run.audience_name}” started: nothing will be written to ${platform.label}.`
        : `Validation of “${run.audience_name}” started.`,
    );
    // The form that held the focus is gone: the runs, where the new one is, take it.
    runsHeading.current?.focus();
  };

  return (
    <>
      <Audiences
        integration={integration}
        headingId={`${idBase}-audiences`}
        state={audiences}
        lastRunOf={lastRunOf}
        onValidate={(audience) => {
          setNotice(null);
          setValidating(audience);
        }}
        onProblem={onProblem}
      />
      {validating !== null && (
        <ValidateForm
          key={validating.id}
          integrationId={integration.id}
          audience={validating}
          onStarted={started}
          onClose={() => setValidating(null)}
        />
      )}
      <FormNotice message={notice} />
      <RunsPanel headingId={`${idBase}-runs`} headingRef={runsHeading} runs={runs} />
      <SchedulesPanel
        integrationId={integration.id}
        accountName={integration.account_name}
        headingId={`${idBase}-schedules`}
        audiences={audiences.audiences}
      />
      <CampaignCheckForm integrationId={integration.id} headingId={`${idBase}-campaign-check`} />
    </>
  );
}
