/**
 * The composition of background work, beside `index.ts`: the queue picked from
 * configuration (in-process embedded, BullMQ with REDIS_URL), and a process's job runtime with the
 * kinds and periodic tasks each domain contributes (list runs, the list sweep, webhook dispatch,
 * the removal of expired sessions and of expired audit log entries, the deletion of list results
 * past their retention).
 */
import { sessionSweepTask } from '../accounts/session-sweep.ts';
import { InProcessQueue } from '../adapters/queue/local/in-process-queue.ts';
import { sendWebhook } from '../adapters/webhooks/http-sender.ts';
import { auditExpiryTask } from '../audit/audit-expiry.ts';
import type { Config } from '../config.ts';
import { hubspotWatchPollingTask } from '../integrations/hubspot/watch-polling.ts';
import { ACTIVE_RUN_STATES, RUN_JOB, type RunStore } from '../integrations/runs/ports.ts';
import { scheduleTask } from '../integrations/schedules/schedule-task.ts';
import type { JobQueue, QueueErrorHandler } from '../jobs/ports.ts';
import { type JobRuntime, startJobRuntime } from '../jobs/runtime.ts';
import { ListRunner } from '../lists/list-runner.ts';
import { listSweepTask } from '../lists/list-sweep.ts';
import { listTurnsHandler } from '../lists/list-turns.ts';
import { LIST_JOB, type ListStore } from '../lists/ports.ts';
import { meteredDailyUsage } from '../observability/metered-verification.ts';
import { retentionTask } from '../privacy/retention-task.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { recordListEnd } from '../webhooks/events.ts';
import { nextAttemptDelayMs } from '../webhooks/retry.ts';
import { webhookSecretFor } from '../webhooks/signature.ts';
import { createRunWorker, runSweepTask } from './runs.ts';
import type { Services } from './services.ts';

/**
 * The queue's error handler: logs every failure, and stops as `failed` a list (or a run) whose every
 * attempt failed (a bug, not an address: those are results), instead of letting every sweep queue it again.
 * The owner sees why in its message; the details stay in the log.
 */
export function failListsGivenUp(
  lists: Pick<ListStore, 'transition' | 'getList' | 'addWebhookDelivery'>,
  warn: (message: string) => void,
  runs?: Pick<RunStore, 'updateRun'>,
): QueueErrorHandler {
  return (job, error, willRetry) => {
    const what = job === undefined ? 'job queue' : `${job.kind} ${job.id}`;
    const givenUp =
      job?.kind === LIST_JOB
        ? ' (given up: the list failed)'
        : job?.kind === RUN_JOB
          ? ' (given up: the run failed)'
          : ' (given up)';
    const retry = willRetry === undefined ? '' : willRetry ? ' (retried)' : givenUp;
    warn(`${what}: ${error instanceof Error ? error.message : String(error)}${retry}`);
    if (job === undefined || willRetry !== false) return;
    const now = new Date();
    const message = 'Processing failed after several attempts; the server log has the details.';
    if (job.kind === RUN_JOB && runs !== undefined) {
      runs
        .updateRun(job.id, ACTIVE_RUN_STATES, 'failed', now.toISOString(), {
          message,
          finishedAt: now.toISOString(),
        })
        .catch((failure: unknown) => warn(`run ${job.id}: could not be marked failed (${String(failure)})`));
      return;
    }
    if (job.kind !== LIST_JOB) return;
    const listId = job.id;
    lists
      .transition(listId, ['queued', 'running'], 'failed', now, { pauseReason: null, message })
      .then((failed) => (failed ? recordListEnd(lists, listId, 'failed', now) : undefined))
      .catch((failure: unknown) => warn(`list ${listId}: could not be marked failed (${String(failure)})`));
  };
}

/** The job queue for this configuration (BullMQ is loaded only in scale-out). */
export async function createQueue(config: Config, onError: QueueErrorHandler): Promise<JobQueue> {
  if (config.REDIS_URL === undefined) return new InProcessQueue({ onError });
  const { BullmqQueue } = await import('../adapters/queue/bullmq/bullmq-queue.ts');
  return new BullmqQueue({
    url: config.REDIS_URL,
    lockDurationMs: config.MAILVET_JOB_LOCK_MS,
    // A killed worker's job is looked for twice per lock period: taken over soon after the lock ends.
    stalledIntervalMs: Math.max(500, Math.floor(config.MAILVET_JOB_LOCK_MS / 2)),
    onError,
  });
}

/** How often due webhook deliveries are looked for, ms. */
const WEBHOOK_POLL_MS = 1_000;

/** How long one webhook POST may take, ms. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** Starts this process's job runtime: list runs, the list sweep and webhook dispatch, logging to the services' logger. */
export function startWorker(services: Services): JobRuntime {
  const { config, store, plans, queue } = services;
  const log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void =>
    services.log[level](fields ?? {}, message);
  const now = () => new Date();
  const runner = new ListRunner({
    store,
    plans,
    verify: (email, options) => services.service.verifyUncharged(email, options),
    recheckDelayMs: config.MAILVET_LIST_RECHECK_MS,
    daily: services.metrics.enabled ? meteredDailyUsage(services.daily, services.metrics) : services.daily,
  });
  const runs = createRunWorker({
    store,
    plans,
    integrations: services.integrations,
    lists: services.lists,
    queue,
    log: services.log,
    feedback: services.feedback,
    pollMs: config.MAILVET_RUN_POLL_MS,
    ...(services.now && { now: services.now }),
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
  return startJobRuntime({
    queue,
    // Fair between accounts, a cap per account, and no slot held while a list waits for a re-check.
    handlers: {
      [LIST_JOB]: listTurnsHandler({ store, plans, queue, runner, now, log }),
      [RUN_JOB]: runs.handle,
    },
    tasks: [
      listSweepTask({ store, plans, queue, everyMs: config.MAILVET_LIST_SWEEP_MS, now, log }),
      runSweepTask({ store, queue, everyMs: config.MAILVET_LIST_SWEEP_MS }),
      scheduleTask({ store: store.schedules, runs: services.runs, now: services.now ?? now, log }),
      hubspotWatchPollingTask({
        store: store.integrations,
        integrations: services.integrations,
        watches: services.watches,
        everyMs: config.MAILVET_HUBSPOT_POLL_SECONDS * 1000,
        now: services.now ?? now,
        log,
      }),
      { name: 'webhook delivery', everyMs: WEBHOOK_POLL_MS, run: () => webhooks.deliverDue() },
      sessionSweepTask({ users: store.users, now, log }),
      auditExpiryTask({ log: store.audit, now: services.now ?? now, report: log }),
      retentionTask({
        store: store.privacy,
        plans,
        defaultDays: services.privacy.defaultRetentionDays,
        now: services.now ?? now,
        everyMs: config.MAILVET_LIST_SWEEP_MS,
        log,
      }),
    ],
    concurrency: config.MAILVET_WORKER_CONCURRENCY,
    log,
  });
}
