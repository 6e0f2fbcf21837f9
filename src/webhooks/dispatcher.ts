/**
 * Sends due webhook events: claims them from the store with a lease (several workers never send
 * one event at once; a worker that dies mid-send leaves it to be sent again when the lease runs
 * out), sends each, and records the outcome: delivered, retried later with backoff, or given up.
 * Delivery is at least once: receivers deduplicate by the `Mailvet-Delivery` id.
 */
import type { WebhookDelivery, WebhookOutbox } from './ports.ts';

/** What one attempt came to; expected failures are values. */
export type SendOutcome = { ok: true } | { ok: false; retry: boolean; reason: string };

export interface WebhookDispatcherDeps {
  lists: Pick<WebhookOutbox, 'claimWebhookDeliveries' | 'recordWebhookAttempt'>;
  /** Signs and POSTs one event. */
  send: (delivery: WebhookDelivery) => Promise<SendOutcome>;
  /** Wait before the attempt after attempt `n` (1-based), ms; null when `n` was the last. */
  nextDelayMs: (attempt: number) => number | null;
  /** How long a claimed event is reserved for its sender, ms (default 60 s): above the send timeout. */
  leaseMs?: number;
  /** Events claimed per round (default 10). */
  batchSize?: number;
  now?: () => Date;
}

/** Delivers webhook events from the store. */
export class WebhookDispatcher {
  readonly #deps: WebhookDispatcherDeps;
  readonly #now: () => Date;

  constructor(deps: WebhookDispatcherDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * Sends the events due now, a batch at a time, and resolves when their outcomes are recorded. It
   * stops at a batch that comes back short, which also happens when a concurrent round (another
   * process) claimed the rest: that round sends them, and the next tick finds any left.
   */
  async deliverDue(): Promise<void> {
    for (;;) {
      const now = this.#now();
      const batchSize = this.#deps.batchSize ?? 10;
      const leaseUntil = new Date(now.getTime() + (this.#deps.leaseMs ?? 60_000));
      const claimed = await this.#deps.lists.claimWebhookDeliveries(now, leaseUntil, batchSize);
      await Promise.all(claimed.map((delivery) => this.#attempt(delivery)));
      if (claimed.length < batchSize) return;
    }
  }

  async #attempt(delivery: WebhookDelivery): Promise<void> {
    let outcome: SendOutcome;
    try {
      outcome = await this.#deps.send(delivery);
    } catch (error) {
      // A bug in sending is retried like a failed attempt, not lost.
      outcome = { ok: false, retry: true, reason: error instanceof Error ? error.message : String(error) };
    }
    const at = this.#now();
    if (outcome.ok) {
      await this.#deps.lists.recordWebhookAttempt(delivery.id, {
        deliveredAt: at,
        nextAttemptAt: null,
        error: null,
      });
      return;
    }
    // `attempts` already counts this one: the claim incremented it.
    const delay = outcome.retry ? this.#deps.nextDelayMs(delivery.attempts) : null;
    await this.#deps.lists.recordWebhookAttempt(delivery.id, {
      deliveredAt: null,
      nextAttemptAt: delay === null ? null : new Date(at.getTime() + delay),
      error: outcome.reason.slice(0, 500),
    });
  }
}
