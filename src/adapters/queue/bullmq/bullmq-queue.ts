/**
 * The scale-out job queue: jobs carried on BullMQ in Redis from API processes to
 * `mailvet worker` processes. The BullMQ job id is the job's `kind.id`, so Redis itself keeps one
 * pending run per job across every process, and finished jobs are deleted so the same job can be
 * enqueued again.
 *
 * A worker holds a lock on each job it runs and renews it while the handler works; a worker that
 * dies (kill -9, lost host) stops renewing, and once the lock expires another worker's stalled
 * check puts the job back in line. BullMQ opens its own connections from the URL (they need other
 * settings than the shared fail-fast client of `redis-client.ts`) and closes them in close().
 */
import { type ConnectionOptions, DelayedError, type Job, Queue, WaitingError, Worker } from 'bullmq';
import {
  type ConsumeOptions,
  type JobCounts,
  type JobHandlers,
  type JobOutcome,
  type JobQueue,
  type JobRef,
  jobKey,
  type QueueErrorHandler,
} from '../../../jobs/ports.ts';
import {
  assertConcurrency,
  assertJob,
  assertRetryPolicy,
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  handlerFor,
  reportError,
} from '../queue-policy.ts';

/** Where and how the job queue lives in Redis; only `url` is required. */
export interface BullmqQueueOptions {
  /** `redis://…` (REDIS_URL). */
  url: string;
  /** The queue's name (default `lists`). */
  queueName?: string;
  /** Prefix of every key of the queue (default `mailvet:queue`); tests use one per run. */
  prefix?: string;
  /** Runs of one enqueue before it is given up, the first included (default 5). */
  attempts?: number;
  /** Delay before the first retry in ms, doubled for each further one (default 1000). */
  backoffMs?: number;
  /** How long a job's lock lives without renewal, in ms (default 30000). */
  lockDurationMs?: number;
  /** How often a worker looks for jobs whose lock expired, in ms (default 15000). */
  stalledIntervalMs?: number;
  /** Times a job may be recovered from a dead worker before it is failed (default 1). */
  maxStalledCount?: number;
  /** enqueue() rejects when Redis has not taken the job within this many ms (default 2000). */
  enqueueTimeoutMs?: number;
  /** Told about handler failures and connection trouble; never throws into the queue. */
  onError?: QueueErrorHandler;
}

/**
 * What a BullMQ job carries. Jobs added before kinds existed carry only `listId` (and are list
 * jobs): a worker of this release still runs them during a rolling upgrade.
 */
interface JobData {
  kind?: string;
  id?: string;
  listId?: string;
}

function jobOf(data: JobData): JobRef {
  return { kind: data.kind ?? 'list', id: data.id ?? data.listId ?? '' };
}

/** The JobQueue on BullMQ: a producer in API processes, a consumer in workers, or both. */
export class BullmqQueue implements JobQueue {
  readonly kind = 'bullmq' as const;
  readonly #options: BullmqQueueOptions;
  readonly #queueName: string;
  readonly #prefix: string;
  readonly #attempts: number;
  readonly #backoffMs: number;
  #queue: Queue<JobData> | undefined;
  #worker: Worker<JobData> | undefined;
  /** Whether the worker's connection was ever ready; see #shutdown. */
  #workerReady = false;
  /** Handler runs in flight in this process. */
  readonly #running = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(options: BullmqQueueOptions) {
    this.#options = options;
    this.#queueName = options.queueName ?? 'lists';
    this.#prefix = options.prefix ?? 'mailvet:queue';
    this.#attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.#backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    assertRetryPolicy(this.#attempts, this.#backoffMs);
  }

  /**
   * Adds `job` unless it is waiting, backing off or running. Rejects after `enqueueTimeoutMs` when
   * Redis does not answer; the add may still land once Redis is back, which is harmless (same job
   * id).
   */
  async enqueue(job: JobRef): Promise<void> {
    assertJob(job);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    const key = jobKey(job);
    const adding = this.#producer().add(job.kind, { kind: job.kind, id: job.id }, { jobId: key });
    await withTimeout(adding, this.#options.enqueueTimeoutMs ?? 2_000, `enqueue of ${key}`);
  }

  /** Starts a BullMQ worker handing jobs to `handlers`, at most `concurrency` at once. Only once. */
  consume(handlers: JobHandlers, options: ConsumeOptions): void {
    assertConcurrency(options.concurrency);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    if (this.#worker !== undefined) throw new Error('consume() was already called on this queue');
    const onError = this.#options.onError;
    const worker = new Worker<JobData>(this.#queueName, (job, token) => this.#process(handlers, job, token), {
      prefix: this.#prefix,
      // Blocking reads and lock renewals must wait out a Redis restart, not fail: BullMQ requires it.
      connection: connectionOptions(this.#options.url, { maxRetriesPerRequest: null }),
      concurrency: options.concurrency,
      lockDuration: this.#options.lockDurationMs ?? 30_000,
      stalledInterval: this.#options.stalledIntervalMs ?? 15_000,
      maxStalledCount: this.#options.maxStalledCount ?? 1,
      // Also here, for jobs added by a producer with other defaults.
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    });
    // Without an 'error' listener an EventEmitter throws, which would crash the process.
    worker.on('error', (error) => reportError(onError, undefined, error));
    worker.on('ready', () => {
      this.#workerReady = true;
    });
    worker.on('stalled', (jobId) => {
      const error = new Error(`job ${jobId}: its worker stopped renewing the lock; job put back in line`);
      const [kind = '', ...id] = jobId.split('.');
      reportError(
        onError,
        id.length > 0 ? { kind, id: id.join('.') } : jobOf({ listId: jobId }),
        error,
        true,
      );
    });
    this.#worker = worker;
  }

  /** The shared queue's jobs by state (every process sees the same); bounded like an enqueue. */
  async counts(): Promise<JobCounts> {
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    const counts = await withTimeout(
      this.#producer().getJobCounts('waiting', 'prioritized', 'active', 'delayed'),
      this.#options.enqueueTimeoutMs ?? 2_000,
      'job counts',
    );
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
    };
  }

  /** Stops fetching, waits for running handlers, then closes every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const worker = this.#worker;
    // A graceful close waits for the running jobs and their bookkeeping in Redis. A worker that
    // never connected has none, and BullMQ's graceful close would wait for the connection for
    // ever (it awaits the blocking connection before closing it): force that one.
    const closing = [
      this.#workerReady ? worker?.close() : worker?.close(true),
      Promise.allSettled([...this.#running]),
      this.#queue?.close(),
    ];
    for (const outcome of await Promise.allSettled(closing)) {
      if (outcome.status === 'rejected') reportError(this.#options.onError, undefined, outcome.reason);
    }
  }

  /** The producer side, opened on first use: a worker-only process never needs it. */
  #producer(): Queue<JobData> {
    if (this.#queue !== undefined) return this.#queue;
    const queue = new Queue<JobData>(this.#queueName, {
      prefix: this.#prefix,
      // A request must not wait for Redis to come back: refuse at once while disconnected.
      connection: connectionOptions(this.#options.url, { enableOfflineQueue: false }),
      defaultJobOptions: {
        attempts: this.#attempts,
        backoff: { type: 'exponential', delay: this.#backoffMs },
        // Deleted once finished, so a later enqueue of the same job is not deduplicated away.
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    queue.on('error', (error) => reportError(this.#options.onError, undefined, error));
    this.#queue = queue;
    return queue;
  }

  async #process(handlers: JobHandlers, job: Job<JobData>, token: string | undefined): Promise<void> {
    const ref = jobOf(job.data);
    if (this.#closing !== undefined) {
      // Fetched in the instant close() began: give it back unstarted (at the head of the line,
      // no attempt counted) rather than start work after close().
      if (token !== undefined) await job.moveToWait(token);
      throw new WaitingError();
    }
    const run = Promise.resolve().then(() => handlerFor(handlers, ref.kind)(ref.id));
    this.#running.add(run);
    let outcome: JobOutcome;
    try {
      outcome = await run;
    } catch (error) {
      const willRetry = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      reportError(this.#options.onError, ref, error, willRetry);
      // BullMQ records `error.message`; a thrown non-Error would be recorded as nothing.
      throw error instanceof Error ? error : new Error(String(error), { cause: error });
    } finally {
      this.#running.delete(run);
    }
    if (outcome !== undefined && token !== undefined) {
      // The job stays under its id as a delayed job (so an enqueue meanwhile is a no-op), and its
      // slot is free at once; DelayedError tells BullMQ the job moved, not failed (no attempt used).
      await job.moveToDelayed(Date.now() + Math.max(0, outcome.runAgainInMs), token);
      throw new DelayedError();
    }
  }
}

/** ioredis options for BullMQ's own connections, built from the URL. */
function connectionOptions(url: string, overrides: Record<string, unknown>): ConnectionOptions {
  return {
    url,
    connectTimeout: 1_000,
    // BullMQ's default waits up to 20 s between reconnections; come back within 2 s instead.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
    ...overrides,
  };
}

/** Rejects when `promise` has not settled within `ms`; its own late rejection stays handled. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
