/**
 * The embedded-mode job queue: an in-memory FIFO in this process. Nothing here
 * survives a restart, and nothing needs to: the work's state is in the store, and the periodic
 * sweeps re-enqueue what is runnable from there. It follows the same rules as the BullMQ
 * queue (see the JobQueue port): one pending run per id, retries with exponential backoff, runs
 * deferred by their handler.
 */
import {
  type ConsumeOptions,
  type JobCounts,
  type JobHandlers,
  type JobQueue,
  type JobRef,
  jobKey,
  type QueueErrorHandler,
} from '../../../jobs/ports.ts';
import {
  assertConcurrency,
  assertJob,
  assertRetryPolicy,
  backoffDelay,
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  handlerFor,
  reportError,
} from '../queue-policy.ts';

/** Tuning for {@link InProcessQueue}; tests shorten the backoff. */
export interface InProcessQueueOptions {
  /** Runs of one enqueue before it is given up, the first included (default 5). */
  attempts?: number;
  /** Delay before the first retry in ms, doubled for each further one (default 1000). */
  backoffMs?: number;
  /** Told about handler failures (see {@link QueueErrorHandler}); never throws into the queue. */
  onError?: QueueErrorHandler;
}

/** An in-memory FIFO of jobs, handed to the handlers of their kinds with bounded concurrency. */
export class InProcessQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  readonly #attempts: number;
  readonly #backoffMs: number;
  readonly #onError: QueueErrorHandler | undefined;
  /** Jobs ready to run, oldest first. */
  readonly #ready: JobRef[] = [];
  /** The key of every job waiting, backing off or running: enqueueing one of these is a no-op. */
  readonly #pending = new Set<string>();
  /** Failures so far of jobs that are being retried, by key. */
  readonly #failures = new Map<string, number>();
  /** Timers of jobs waiting to be retried or run again (backoff, deferral), by key. */
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  /** The handler runs in flight, so close() can wait for them. */
  readonly #running = new Set<Promise<void>>();
  #handlers: JobHandlers | undefined;
  #concurrency = 1;
  #closing: Promise<void> | undefined;

  constructor(options: InProcessQueueOptions = {}) {
    this.#attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.#backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    assertRetryPolicy(this.#attempts, this.#backoffMs);
    this.#onError = options.onError;
  }

  /** Queues a run of `job` unless one is already waiting, backing off or running. */
  async enqueue(job: JobRef): Promise<void> {
    assertJob(job);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    const key = jobKey(job);
    if (this.#pending.has(key)) return;
    this.#pending.add(key);
    this.#ready.push({ kind: job.kind, id: job.id });
    this.#pump();
  }

  /** Starts handing jobs to `handlers`, at most `concurrency` at once. Only once per queue. */
  consume(handlers: JobHandlers, options: ConsumeOptions): void {
    assertConcurrency(options.concurrency);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    if (this.#handlers !== undefined) throw new Error('consume() was already called on this queue');
    this.#handlers = handlers;
    this.#concurrency = options.concurrency;
    this.#pump();
  }

  /** Jobs ready to run, running, and waiting for their backoff or deferral to pass. */
  async counts(): Promise<JobCounts> {
    return { waiting: this.#ready.length, active: this.#running.size, delayed: this.#retryTimers.size };
  }

  /**
   * Hands out no more work, drops what waits (the store still knows that work), and resolves
   * once the running handlers have settled.
   */
  close(): Promise<void> {
    this.#closing ??= this.#drain();
    return this.#closing;
  }

  async #drain(): Promise<void> {
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    this.#ready.length = 0;
    // A running handler's finally block only bookkeeps once closed, so this set only shrinks.
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    this.#pending.clear();
    this.#failures.clear();
  }

  /** Starts ready jobs while there is a free slot. */
  #pump(): void {
    const handlers = this.#handlers;
    if (handlers === undefined) return;
    while (this.#closing === undefined && this.#running.size < this.#concurrency) {
      const job = this.#ready.shift();
      if (job === undefined) return;
      const run = this.#run(handlers, job).finally(() => {
        this.#running.delete(run);
        this.#pump();
      });
      this.#running.add(run);
    }
  }

  /** One attempt; never rejects. */
  async #run(handlers: JobHandlers, job: JobRef): Promise<void> {
    const key = jobKey(job);
    try {
      // Inside the try, so a missing handler or one that throws synchronously is retried like
      // one that rejects.
      const outcome = await handlerFor(handlers, job.kind)(job.id);
      this.#failures.delete(key);
      if (outcome !== undefined && this.#closing === undefined) {
        this.#scheduleRetry(job, Math.max(0, outcome.runAgainInMs));
      } else {
        this.#pending.delete(key);
      }
    } catch (error) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      const willRetry = failures < this.#attempts && this.#closing === undefined;
      reportError(this.#onError, job, error, willRetry);
      if (willRetry) {
        this.#failures.set(key, failures);
        this.#scheduleRetry(job, backoffDelay(this.#backoffMs, failures));
      } else {
        this.#failures.delete(key);
        this.#pending.delete(key);
      }
    }
  }

  /** Puts `job` back at the end of the line after `delayMs` (a retry or a deferral); it stays pending meanwhile. */
  #scheduleRetry(job: JobRef, delayMs: number): void {
    const key = jobKey(job);
    const timer = setTimeout(() => {
      this.#retryTimers.delete(key);
      this.#ready.push(job);
      this.#pump();
    }, delayMs);
    this.#retryTimers.set(key, timer);
  }
}
