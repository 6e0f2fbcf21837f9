/**
 * The webhook events of list jobs (see docs/webhooks.md): their ids and bodies. A body is fixed
 * when the event happens, so every retry sends the same bytes.
 */

import { listView } from '../lists/list-view.ts';
import type { ListRecord, WebhookDelivery } from '../lists/ports.ts';

/** The `list.completed` event of a list that is completing at `now`. */
export function completionDelivery(list: ListRecord, now: Date): Omit<WebhookDelivery, 'attempts'> {
  // One id per list and event: a list completed twice (a re-run after a crash) records one event.
  const id = `whd_${list.id.replace(/^lst_/, '')}_completed`;
  const at = now.toISOString();
  const completed: ListRecord = {
    ...list,
    state: 'completed',
    pauseReason: null,
    message: null,
    finishedAt: at,
    updatedAt: at,
  };
  const body = JSON.stringify({
    id,
    event: 'list.completed',
    created_at: at,
    data: { list: listView(completed) },
  });
  return { id, listId: list.id, url: list.webhookUrl ?? '', event: 'list.completed', body, createdAt: at };
}
