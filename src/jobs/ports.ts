/**
 * The job queue port: it carries "run list job X" messages from the API to whoever processes lists.
 * Embedded mode runs them in-process; scale-out carries them on BullMQ (Redis) to `mailvet worker`
 * processes. The queue only says *which* list to work on: a list's state and every result live in
 * the store, and a handler always works from there, so a lost or repeated message costs nothing
 * but time (handlers are idempotent; the runner re-enqueues runnable lists from the store on start).
 */

/**
 * What a handler asks for when it returns: nothing (the run is over), or the same id run again
 * after `runAgainInMs`, its slot free meanwhile (a list waiting minutes for a re-check must not
 * hold a worker slot). A deferral is not a failure: it counts no attempt.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that is done returns nothing at all
export type JobOutcome = void | { runAgainInMs: number };

/** Works on one list until it is done, paused, cancelled or waiting; throwing makes the queue retry later. */
export type JobHandler = (listId: string) => Promise<JobOutcome>;

export interface ConsumeOptions {
  /** Handlers running at once in this process. */
  concurrency: number;
}

export interface JobQueue {
  /** Which implementation: for logs. */
  readonly kind: 'in-process' | 'bullmq';
  /**
   * Asks for a run of list `listId`. One run per id is pending at a time, in both implementations:
   * while a run of that id is waiting (or backing off before a retry), another enqueue is a no-op;
   * while one is running, another enqueue is ignored too (BullMQ keeps the job under its id until
   * it finishes), so the running handler must see new work itself: it re-reads the list's state
   * from the store between batches, and checks once more before returning. Once a run has
   * finished (or spent its attempts), a later enqueue runs it again. Rejects for an id a queue
   * cannot carry (empty, an integer, or with `:`; `lst_<hex>` ids are fine), after close(), and —
   * on BullMQ — within about 2 s when Redis does not answer, rather than hang the request.
   */
  enqueue(listId: string): Promise<void>;
  /**
   * Starts handing ids to `handler` (call once per process that processes lists; a second call
   * throws). At most `concurrency` handlers run at once in this process. A handler that throws
   * is retried with exponential backoff (1 s, 2 s, 4 s… by default) up to its attempts (5 by
   * default, the first included), then given up until enqueued again; the queue reports each
   * failure to its `onError` option and never lets one escape. A handler that returns
   * `{runAgainInMs}` frees its slot; the id stays pending (an enqueue meanwhile is a no-op) and
   * runs again once that time has passed (BullMQ keeps it as a delayed job in Redis; the in-process
   * queue drops it at close, the store still knows the list).
   */
  consume(handler: JobHandler, options: ConsumeOptions): void;
  /**
   * Stops taking new work (no handler starts once close() is called), waits for running handlers
   * to settle, and releases connections. Idempotent. Waiting ids are kept by BullMQ for the next
   * worker and dropped by the in-process queue (the store still knows them).
   */
  close(): Promise<void>;
}
