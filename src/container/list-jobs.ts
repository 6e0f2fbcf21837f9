/**
 * The composition of list jobs (DESIGN §3, §4), beside `container.ts`: the queue picked from
 * configuration (in-process embedded, BullMQ with REDIS_URL), the API's list service, and a
 * process's worker (runner, sweeps, webhook dispatcher).
 */
import { BullmqQueue } from '../adapters/queue/bullmq/bullmq-queue.ts';
import { InProcessQueue } from '../adapters/queue/local/in-process-queue.ts';
import type { QueueErrorHandler } from '../adapters/queue/queue-policy.ts';
import { sendWebhook } from '../adapters/webhooks/http-sender.ts';
import type { Config } from '../config.ts';
import type { JobQueue } from '../jobs/ports.ts';
import { ListRunner } from '../lists/list-runner.ts';
import { type ListWorker, startListWorker } from '../lists/list-worker.ts';
import type { ListStore } from '../lists/ports.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { nextAttemptDelayMs } from '../webhooks/retry.ts';
import { webhookSecretFor } from '../webhooks/signature.ts';
import type { Services } from './services.ts';

/** Where a process's worker reports. */
export type WorkerLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

/**
 * The queue's error handler: logs every failure, and stops as `failed` a list whose every attempt
 * failed (a bug, not an address: those are results), instead of letting every sweep queue it again.
 * The owner sees why in its message; the details stay in the log.
 */
export function failListsGivenUp(
  lists: Pick<ListStore, 'transition'>,
  warn: (message: string) => void,
): QueueErrorHandler {
  return (listId, error, willRetry) => {
    const what = listId === undefined ? 'job queue' : `list ${listId}`;
    const retry = willRetry === undefined ? '' : willRetry ? ' (retried)' : ' (given up: the list failed)';
    warn(`${what}: ${error instanceof Error ? error.message : String(error)}${retry}`);
    if (listId === undefined || willRetry !== false) return;
    lists
      .transition(listId, ['queued', 'running'], 'failed', new Date(), {
        pauseReason: null,
        message: 'Processing failed after several attempts; the server log has the details.',
      })
      .catch((failure: unknown) => warn(`list ${listId}: could not be marked failed (${String(failure)})`));
  };
}

/** The job queue for this configuration. */
export function createQueue(config: Config, onError: QueueErrorHandler): JobQueue {
  if (config.REDIS_URL === undefined) return new InProcessQueue({ onError });
  return new BullmqQueue({
    url: config.REDIS_URL,
    lockDurationMs: config.MAILVET_JOB_LOCK_MS,
    // A killed worker's job is looked for twice per lock period: taken over soon after the lock ends.
    stalledIntervalMs: Math.max(500, Math.floor(config.MAILVET_JOB_LOCK_MS / 2)),
    onError,
  });
}

/** How long one webhook POST may take, ms. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** Starts this process's list worker on the services' store, queue and verifier. */
export function startWorker(services: Services, log: WorkerLog): Promise<ListWorker> {
  const { config, store, plans, queue } = services;
  const runner = new ListRunner({
    store,
    plans,
    verify: (email, options) => services.service.verifyUncharged(email, options),
    recheckDelayMs: config.MAILVET_LIST_RECHECK_MS,
  });
  const webhooks = new WebhookDispatcher({
    lists: store.lists,
    send: async (delivery) => {
      const outcome = await sendWebhook({
        url: delivery.url,
        body: delivery.body,
        deliveryId: delivery.id,
        event: delivery.event,
        secret: webhookSecretFor(services.secretKey, delivery.listId),
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        allowPrivate: config.MAILVET_WEBHOOK_ALLOW_PRIVATE,
      });
      if (outcome.ok) return { ok: true };
      log('warn', 'webhook delivery failed', { listId: delivery.listId, reason: outcome.reason });
      return { ok: false, retry: outcome.retry, reason: outcome.reason };
    },
    nextDelayMs: (attempt) => nextAttemptDelayMs(attempt, config.MAILVET_WEBHOOK_RETRY_MS),
  });
  return startListWorker({
    store,
    plans,
    queue,
    runner,
    webhooks,
    concurrency: config.MAILVET_WORKER_CONCURRENCY,
    sweepIntervalMs: config.MAILVET_LIST_SWEEP_MS,
    log,
  });
}
