/** What each list state means on screen and which actions it allows (the API answers 409 to others). */
import type { List, ListState } from '../api/types';

export const STATE_LABELS: Record<ListState, string> = {
  queued: 'Queued',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** States whose progress moves on its own: polled every second. */
export function isInProgress(list: List): boolean {
  return list.state === 'queued' || list.state === 'running';
}

/** Not finished: in progress, or paused (a list paused for quota resumes by itself). */
export function isUnfinished(list: List): boolean {
  return isInProgress(list) || list.state === 'paused';
}

export const canPause = (list: List) => list.state === 'queued' || list.state === 'running';
export const canResume = (list: List) => list.state === 'paused';
export const canCancel = (list: List) => isUnfinished(list);
