/**
 * The webhook outbox (`WebhookOutbox`) on Kysely. Deliveries are claimed with a lease (a
 * conditional UPDATE of `next_attempt_at`), so several workers never send one event at once, and a
 * worker that dies mid-delivery leaves it to be retried when the lease runs out: at-least-once.
 */
import { type Kysely, sql } from 'kysely';
import type { WebhookDelivery, WebhookOutbox } from '../../webhooks/ports.ts';
import type { DatabaseSchema } from './schema.ts';

type Deliveries = WebhookOutbox;

/** Webhook deliveries in the `webhook_deliveries` table. */
export class KyselyWebhookDeliveries implements Deliveries {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async addWebhookDelivery(delivery: Omit<WebhookDelivery, 'attempts'>, dueAt: Date): Promise<void> {
    await this.#db
      .insertInto('webhook_deliveries')
      .values({
        id: delivery.id,
        list_id: delivery.listId,
        url: delivery.url,
        event: delivery.event,
        body: delivery.body,
        attempts: 0,
        next_attempt_at: dueAt.toISOString(),
        created_at: delivery.createdAt,
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  async claimWebhookDeliveries(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const due = await this.#db
      .selectFrom('webhook_deliveries')
      .select(['id', 'next_attempt_at'])
      .where('next_attempt_at', '<=', now.toISOString())
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    const claimed: WebhookDelivery[] = [];
    for (const candidate of due) {
      // Only one process's UPDATE finds the old `next_attempt_at`: that one owns this attempt.
      const row = await this.#db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseUntil.toISOString(), attempts: sql<number>`attempts + 1` })
        .where('id', '=', candidate.id)
        .where('next_attempt_at', '=', candidate.next_attempt_at)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) continue;
      claimed.push({
        id: row.id,
        listId: row.list_id,
        url: row.url,
        event: row.event,
        body: row.body,
        attempts: Number(row.attempts),
        createdAt: row.created_at,
      });
    }
    return claimed;
  }

  async recordWebhookAttempt(
    id: string,
    outcome: { deliveredAt: Date | null; nextAttemptAt: Date | null; error: string | null },
  ): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({
        delivered_at: outcome.deliveredAt?.toISOString() ?? null,
        next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
        last_error: outcome.error,
      })
      .where('id', '=', id)
      .execute();
  }
}
