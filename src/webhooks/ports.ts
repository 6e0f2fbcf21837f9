/**
 * The webhooks port: an outbox of events in the store, claimed with a lease by whichever process
 * dispatches, so an event is recorded with the change it announces and sent at least once. The
 * store adapters implement it beside the list store (`kysely-webhook-deliveries.ts`).
 */

/** A webhook event waiting to be delivered. */
export interface WebhookDelivery {
  id: string;
  listId: string;
  url: string;
  event: string;
  body: string;
  attempts: number;
  createdAt: string;
}

/** Webhook events waiting to be sent, and their attempts. */
export interface WebhookOutbox {
  /** Records a webhook event for delivery; a second one with the same id is ignored. */
  addWebhookDelivery(delivery: Omit<WebhookDelivery, 'attempts'>, dueAt: Date): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now`: each is leased until `leaseUntil`, so another
   * process does not send it at the same time.
   */
  claimWebhookDeliveries(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]>;
  /** Records a delivery attempt: delivered, retry at `nextAttemptAt`, or given up (both null). */
  recordWebhookAttempt(
    id: string,
    outcome: { deliveredAt: Date | null; nextAttemptAt: Date | null; error: string | null },
  ): Promise<void>;
}
