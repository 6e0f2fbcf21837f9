/**
 * Live progress without reloading: while a list is queued or running, it is read again about once
 * a second (GET /lists/{id}); a paused one every ten seconds, as quota coming back resumes it. A 429
 * (the dashboard shares the account's rate limit with its keys) waits out its Retry-After.
 */
import { useEffect, useRef } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { List } from '../api/types';
import { isInProgress } from './states';

const INTERVAL_MS = 1000;
const PAUSED_EVERY = 10;

export function useListPolling(
  lists: readonly List[],
  onUpdate: (list: List) => void,
  onGone: (id: string) => void,
) {
  const latest = useRef({ lists, onUpdate, onGone });
  latest.current = { lists, onUpdate, onGone };
  const anyInProgress = lists.some(isInProgress);
  const anyPaused = lists.some((list) => list.state === 'paused');

  useEffect(() => {
    if (!anyInProgress && !anyPaused) return;
    let stopped = false;
    let round = 0;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      round += 1;
      const due = latest.current.lists.filter(
        (list) => isInProgress(list) || (list.state === 'paused' && round % PAUSED_EVERY === 0),
      );
      let waitMs = INTERVAL_MS;
      await Promise.all(
        due.map(async (list) => {
          const outcome = await settle(api.GET('/api/v1/lists/{id}', { params: { path: { id: list.id } } }));
          if (stopped) return;
          if (outcome.ok) latest.current.onUpdate(outcome.data);
          else if (outcome.status === 404) latest.current.onGone(list.id);
          else if (outcome.status === 429) {
            const retryAfter = Number(outcome.response?.headers.get('retry-after'));
            waitMs = Math.max(
              waitMs,
              Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 2000,
            );
          }
        }),
      );
      if (!stopped) timer = setTimeout(poll, waitMs);
    };
    timer = setTimeout(poll, INTERVAL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [anyInProgress, anyPaused]);
}
