/**
 * An integration's runs, newest first, kept live: while one is going the first page is read again
 * about once a second, while one is paused every ten seconds (quota coming back resumes it), and
 * otherwise every half minute, so runs a schedule starts appear too. A 429 (the dashboard shares
 * the account's rate limit with its keys) waits out its Retry-After.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { type Outcome, type Problem, settle } from '../api/problem';
import type { Run } from '../api/types';
import { isActive, isUnfinished } from './runs';

const PAGE_SIZE = '10';
const INTERVAL_MS = 1000;
const PAUSED_EVERY = 10;
const IDLE_EVERY = 30;

type RunPage = { runs: Run[]; next_cursor: string | null };

export interface RunsState {
  runs: Run[] | null;
  problem: Problem | null;
  /** The cursor of the next older page; null when every run is shown. */
  cursor: string | null;
  loadOlder: () => void;
  /** A run the page started or changed (its answer), put in its place. */
  put: (run: Run) => void;
}

export function useRuns(integrationId: string): RunsState {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);

  const fetchPage = useCallback(
    (after: string | null) =>
      settle(
        api.GET('/api/v1/integrations/{id}/runs', {
          params: {
            path: { id: integrationId },
            query: after === null ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor: after },
          },
        }),
      ),
    [integrationId],
  );

  useEffect(() => {
    let current = true;
    void fetchPage(null).then((outcome) => {
      if (!current) return;
      if (!outcome.ok) return setProblem(outcome.problem);
      setRuns(outcome.data.runs);
      setCursor(outcome.data.next_cursor);
    });
    return () => {
      current = false;
    };
  }, [fetchPage]);

  const loadOlder = useCallback(() => {
    if (cursor === null) return;
    void fetchPage(cursor).then((outcome) => {
      if (!outcome.ok) return setProblem(outcome.problem);
      setProblem(null);
      setRuns((shown) => merge(shown ?? [], outcome.data.runs, 'append'));
      setCursor(outcome.data.next_cursor);
    });
  }, [cursor, fetchPage]);

  const put = useCallback((run: Run) => setRuns((shown) => merge(shown ?? [], [run], 'prepend')), []);

  const shown = runs ?? [];
  useRunPolling(shown.some(isActive), shown.some(isUnfinished), fetchPage, (fresh) => {
    setProblem(null);
    setRuns((current) => merge(current ?? [], fresh, 'prepend'));
  });

  return { runs, problem, cursor, loadOlder, put };
}

/** `fresh` runs replace the shown ones of the same id; the others go first (newer) or last (older). */
function merge(shown: readonly Run[], fresh: readonly Run[], unseen: 'prepend' | 'append'): Run[] {
  const byId = new Map(fresh.map((run) => [run.id, run]));
  const known = new Set(shown.map((run) => run.id));
  const updated = shown.map((run) => byId.get(run.id) ?? run);
  const added = fresh.filter((run) => !known.has(run.id));
  return unseen === 'prepend' ? [...added, ...updated] : [...updated, ...added];
}

function useRunPolling(
  anyActive: boolean,
  anyUnfinished: boolean,
  fetchPage: (after: null) => Promise<Outcome<RunPage>>,
  onFresh: (runs: Run[]) => void,
) {
  const latest = useRef({ anyActive, anyUnfinished, fetchPage, onFresh });
  latest.current = { anyActive, anyUnfinished, fetchPage, onFresh };

  useEffect(() => {
    let stopped = false;
    let round = 0;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      round += 1;
      const { anyActive: active, anyUnfinished: unfinished } = latest.current;
      const every = active ? 1 : unfinished ? PAUSED_EVERY : IDLE_EVERY;
      let waitMs = INTERVAL_MS;
      if (round % every === 0) {
        const outcome = await latest.current.fetchPage(null);
        if (stopped) return;
        if (outcome.ok) latest.current.onFresh(outcome.data.runs);
        else if (outcome.status === 429) {
          const retryAfter = Number(outcome.response?.headers.get('retry-after'));
          waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 2000;
        }
      }
      if (!stopped) timer = setTimeout(poll, waitMs);
    };
    timer = setTimeout(poll, INTERVAL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
}
