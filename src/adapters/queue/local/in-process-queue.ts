/**
 * The embedded-mode job queue (DESIGN §4): an in-memory FIFO in this process. Nothing here
 * survives a restart, and nothing needs to: every list's state is in the store, and the runner
 * re-enqueues runnable lists from there when it starts. It follows the same rules as the BullMQ
 * queue (see the JobQueue port): one pending run per id, retries with exponential backoff, runs
 * deferred by their handler.
 */
import type { ConsumeOptions, JobHandler, JobQueue } from '../../../jobs/ports.ts';
import {
  assertConcurrency,
  assertListId,
  assertRetryPolicy,
  backoffDelay,
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  type QueueErrorHandler,
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

/** An in-memory FIFO of list ids, handed to one handler with bounded concurrency. */
export class InProcessQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  readonly #attempts: number;
  readonly #backoffMs: number;
  readonly #onError: QueueErrorHandler | undefined;
  /** Ids ready to run, oldest first. */
  readonly #ready: string[] = [];
  /** Every id waiting, backing off or running: enqueueing one of these is a no-op. */
  readonly #pending = new Set<string>();
  /** Failures so far of ids that are being retried. */
  readonly #failures = new Map<string, number>();
  /** Timers of ids waiting to be retried or run again (backoff, deferral). */
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  /** The handler runs in flight, so close() can wait for them. */
  readonly #running = new Set<Promise<void>>();
  #handler: JobHandler | undefined;
  #concurrency = 1;
  #closing: Promise<void> | undefined;

  constructor(options: InProcessQueueOptions = {}) {
    this.#attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.#backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    assertRetryPolicy(this.#attempts, this.#backoffMs);
    this.#onError = options.onError;
  }

  /** Queues a run of `listId` unless one is already waiting, backing off or running. */
  async enqueue(listId: string): Promise<void> {
    assertListId(listId);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    if (this.#pending.has(listId)) return;
    this.#pending.add(listId);
    this.#ready.push(listId);
    this.#pump();
  }

  /** Starts handing ids to `handler`, at most `concurrency` at once. Only once per queue. */
  consume(handler: JobHandler, options: ConsumeOptions): void {
    assertConcurrency(options.concurrency);
    if (this.#closing !== undefined) throw new Error('job queue is closed');
    if (this.#handler !== undefined) throw new Error('consume() was already called on this queue');
    this.#handler = handler;
    this.#concurrency = options.concurrency;
    this.#pump();
  }

  /**
   * Hands out no more work, drops what waits (the store still knows those lists), and resolves
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

  /** Starts ready ids while there is a free slot. */
  #pump(): void {
    const handler = this.#handler;
    if (handler === undefined) return;
    while (this.#closing === undefined && this.#running.size < this.#concurrency) {
      const listId = this.#ready.shift();
      if (listId === undefined) return;
      const run = this.#run(handler, listId).finally(() => {
        this.#running.delete(run);
        this.#pump();
      });
      this.#running.add(run);
    }
  }

  /** One attempt; never rejects. */
  async #run(handler: JobHandler, listId: string): Promise<void> {
    try {
      // Inside the try, so a handler that throws synchronously is retried like one that rejects.
      const outcome = await handler(listId);
      this.#failures.delete(listId);
      if (outcome !== undefined && this.#closing === undefined) {
        this.#scheduleRetry(listId, Math.max(0, outcome.runAgainInMs));
      } else {
        this.#pending.delete(listId);
      }
    } catch (error) {
      const failures = (this.#failures.get(listId) ?? 0) + 1;
      const willRetry = failures < this.#attempts && this.#closing === undefined;
      reportError(this.#onError, listId, error, willRetry);
      if (willRetry) {
        this.#failures.set(listId, failures);
        this.#scheduleRetry(listId, backoffDelay(this.#backoffMs, failures));
      } else {
        this.#failures.delete(listId);
        this.#pending.delete(listId);
      }
    }
  }

  /** Puts `listId` back at the end of the line after `delayMs` (a retry or a deferral); it stays pending meanwhile. */
  #scheduleRetry(listId: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#retryTimers.delete(listId);
      this.#ready.push(listId);
      this.#pump();
    }, delayMs);
    this.#retryTimers.set(listId, timer);
  }
}
