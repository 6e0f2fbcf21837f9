/**
 * A connected integration's audiences and watches, read from the platform each time the card is
 * shown. When the platform refuses the stored key (409) the integration is disconnected: the card
 * is told, with the reason. Other failures (502: the platform did not answer) stay here, with a
 * way to ask again.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Audience, Watch } from '../api/types';

export interface AudiencesState {
  audiences: Audience[] | null;
  watches: Watch[];
  setWatches: (update: (watches: Watch[]) => Watch[]) => void;
  problem: Problem | null;
  retry: () => void;
}

export function useAudiences(
  integrationId: string,
  onDisconnected: (message: string) => void,
): AudiencesState {
  const [audiences, setAudiences] = useState<Audience[] | null>(null);
  const [watches, setWatches] = useState<Watch[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [attempt, setAttempt] = useState(0);

  // `attempt` asks again after a failure.
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger, not a value read
  useEffect(() => {
    let current = true;
    setProblem(null);
    const params = { params: { path: { id: integrationId } } };
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
      // A permission not granted is a 409 too, but the connection still works for the rest.
      if (failed.status === 409 && failed.problem.code !== 'integration_scope_missing')
        return onDisconnected(failed.problem.message);
      setProblem(failed.problem);
    });
    return () => {
      current = false;
    };
  }, [integrationId, attempt, onDisconnected]);

  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  return { audiences, watches, setWatches, problem, retry };
}
