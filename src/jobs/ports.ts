/**
 * The job queue port: it carries "run job {kind, id}" messages from whoever asks for work (the API,
 * a sweep, a schedule) to whoever does it. Embedded mode runs them in-process; scale-out carries
 * them on BullMQ (Redis) to `mailvet worker` processes. A job says only *what* to work on: its
 * state lives in the store and a handler always works from there, so a lost or repeated message
 * costs nothing but time (handlers are idempotent; periodic sweeps re-enqueue what is runnable).
 */

/** One unit of background work: a kind (which handler) and the id of what it works on. */
export interface JobRef {
  /** Lower-case letters, digits and `-` (`list`, …): names the handler. */
  kind: string;
  /** What the handler works on, e.g. a list id; never empty, an integer, or with `:` or `.`. */
  id: string;
}

/**
 * What a handler asks for when it returns: nothing (the run is over), or the same job run again
 * after `runAgainInMs`, its slot free meanwhile (a list waiting minutes for a re-check must not
 * hold a worker slot). A deferral is not a failure: it counts no attempt.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that is done returns nothing at all
export type JobOutcome = void | { runAgainInMs: number };

/** Works on one id until it is done or waiting; throwing makes the queue retry later. */
export type JobHandler = (id: string) => Promise<JobOutcome>;

/** The handler of each kind a process works on. */
export type JobHandlers = Readonly<Record<string, JobHandler>>;

export interface ConsumeOptions {
  /** Handlers running at once in this process, all kinds together. */
  concurrency: number;
}

/**
 * Told about every failure a queue handled itself (a queue never rethrows them, so none can crash
 * the process):
 * - a handler's error: `job` set, `willRetry` true when another attempt is scheduled, false when
 *   the attempts are spent (the job then waits for a later enqueue, e.g. a sweep);
 * - the queue's own trouble (a lost Redis connection): `job` undefined, `willRetry` undefined.
 */
export type QueueErrorHandler = (job: JobRef | undefined, error: unknown, willRetry?: boolean) => void;

/** Jobs in a queue by state. */
export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
}

export interface JobQueue {
  /** Which implementation: for logs. */
  readonly kind: 'in-process' | 'bullmq';
  /**
   * Asks for a run of `job`. One run per {kind, id} is pending at a time, in both implementations:
   * while a run is waiting (or backing off before a retry), another enqueue is a no-op; while one
   * is running, another enqueue is ignored too (BullMQ keeps the job under its id until it
   * finishes), so the running handler must see new work itself: it re-reads the state from the
   * store between batches, and checks once more before returning. Once a run has finished (or
   * spent its attempts), a later enqueue runs it again. Rejects for a kind or id a queue cannot
   * carry, after close(), and — on BullMQ — within about 2 s when Redis does not answer, rather
   * than hang the request.
   */
  enqueue(job: JobRef): Promise<void>;
  /**
   * Starts handing jobs to the handler of their kind (call once per process that does background
   * work; a second call throws). At most `concurrency` handlers run at once in this process. A job
   * whose kind has no handler here fails like a handler that throws. A handler that throws is
   * retried with exponential backoff (1 s, 2 s, 4 s… by default) up to its attempts (5 by default,
   * the first included), then given up until enqueued again; the queue reports each failure to its
   * `onError` option and never lets one escape. A handler that returns `{runAgainInMs}` frees its
   * slot; the job stays pending (an enqueue meanwhile is a no-op) and runs again once that time has
   * passed (BullMQ keeps it as a delayed job in Redis; the in-process queue drops it at close, the
   * store still knows the work).
   */
  consume(handlers: JobHandlers, options: ConsumeOptions): void;
  /**
   * How many jobs wait, run and wait out a delay (a retry's backoff, a deferral), all kinds
   * together: this process's for the in-process queue, the shared queue's for BullMQ. For metrics.
   */
  counts(): Promise<JobCounts>;
  /**
   * Stops taking new work (no handler starts once close() is called), waits for running handlers
   * to settle, and releases connections. Idempotent. Waiting jobs are kept by BullMQ for the next
   * worker and dropped by the in-process queue (the store still knows them).
   */
  close(): Promise<void>;
}

/** The key one pending run is kept under: `kind.id` (BullMQ refuses `:` in job ids). */
export function jobKey(job: JobRef): string {
  return `${job.kind}.${job.id}`;
}
