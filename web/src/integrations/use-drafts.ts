/**
 * The platform's draft campaigns (`GET /integrations/{id}/campaigns`), for the pre-campaign check
 * to offer; read when the check is shown and again on request (a draft made meanwhile).
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { DraftCampaign } from '../api/types';

export interface DraftsState {
  /** Null until read. */
  drafts: DraftCampaign[] | null;
  problem: Problem | null;
  reload: () => void;
}

export function useDrafts(integrationId: string): DraftsState {
  const [drafts, setDrafts] = useState<DraftCampaign[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each attempt reads again
  useEffect(() => {
    let current = true;
    setProblem(null);
    void settle(
      api.GET('/api/v1/integrations/{id}/campaigns', { params: { path: { id: integrationId } } }),
    ).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setDrafts(outcome.data.campaigns);
      else setProblem(outcome.problem);
    });
    return () => {
      current = false;
    };
  }, [integrationId, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { drafts, problem, reload };
}
