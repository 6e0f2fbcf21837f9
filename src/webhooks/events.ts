/**
 * The webhook events of list jobs (see docs/webhooks.md): their ids and bodies. A body is fixed
 * when the event happens, so every retry sends the same bytes.
 */

import { listView } from '../lists/list-view.ts';
import type { ListRecord, ListStore } from '../lists/ports.ts';
import type { WebhookDelivery } from './ports.ts';

/** Each finished state of a list has its event. */
export const LIST_EVENTS = {
  completed: 'list.completed',
  failed: 'list.failed',
  cancelled: 'list.cancelled',
} as const;

export type ListEndState = keyof typeof LIST_EVENTS;
export type ListEvent = (typeof LIST_EVENTS)[ListEndState];

/** The event of a list reaching `state` at `now` (the list as it is then, or just before). */
export function listEventDelivery(
  list: ListRecord,
  state: ListEndState,
  now: Date,
): Omit<WebhookDelivery, 'attempts'> {
  // One id per list and event: a list completed twice (a re-run after a crash) records one event.
  const id = `whd_${list.id.replace(/^lst_/, '')}_${state}`;
  const event = LIST_EVENTS[state];
  const at = now.toISOString();
  const ended: ListRecord = {
    ...list,
    state,
    pauseReason: null,
    // A completed list has nothing to explain; a failed or cancelled one keeps its reason.
    message: state === 'completed' ? null : list.message,
    finishedAt: list.finishedAt ?? at,
    updatedAt: at,
  };
  const body = JSON.stringify({ id, event, created_at: at, data: { list: listView(ended) } });
  return { id, listId: list.id, url: list.webhookUrl ?? '', event, body, createdAt: at };
}

/**
 * Records the event of a list that has just been failed or cancelled (the state change comes
 * first: it may lose a race, and an event must not announce what did not happen). A list without a
 * webhook has no event.
 */
export async function recordListEnd(
  lists: Pick<ListStore, 'getList' | 'addWebhookDelivery'>,
  listId: string,
  state: Exclude<ListEndState, 'completed'>,
  now: Date,
): Promise<void> {
  const list = await lists.getList(listId);
  if (list === null || list.state !== state || list.webhookUrl === null) return;
  await lists.addWebhookDelivery(listEventDelivery(list, state, now), now);
}
