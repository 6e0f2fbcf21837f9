/**
 * What both JobQueue implementations agree on, kept in one place so embedded and scale-out mode
 * behave alike: the retry policy, which ids a queue accepts, and how failures are reported.
 */

/** Runs of one enqueue before it is given up, the first included (BullMQ's `attempts`). */
export const DEFAULT_ATTEMPTS = 5;

/** Delay before the first retry; each further retry waits twice as long (1 s, 2 s, 4 s, 8 s). */
export const DEFAULT_BACKOFF_MS = 1_000;

/**
 * Told about every failure a queue handled itself (a queue never rethrows them, so none can crash
 * the process):
 * - a handler's error: `listId` set, `willRetry` true when another attempt is scheduled, false
 *   when the attempts are spent (the list then waits for a later enqueue, e.g. start-up recovery);
 * - the queue's own trouble (a lost Redis connection): `listId` undefined when no list is
 *   concerned, `willRetry` undefined.
 */
export type QueueErrorHandler = (listId: string | undefined, error: unknown, willRetry?: boolean) => void;

/** Calls `onError` and swallows what it throws: a broken logger must not break the queue. */
export function reportError(
  onError: QueueErrorHandler | undefined,
  listId: string | undefined,
  error: unknown,
  willRetry?: boolean,
): void {
  try {
    onError?.(listId, error, willRetry);
  } catch {
    // Nowhere left to report it.
  }
}

/** The backoff before retry number `failures` (1 after the first failure): base × 2^(failures-1). */
export function backoffDelay(baseMs: number, failures: number): number {
  return baseMs * 2 ** (failures - 1);
}

/**
 * Refuses ids BullMQ cannot carry as a job id (an integer, or one with `:`), and the empty id, in
 * both implementations, so an id that works embedded cannot fail only in scale-out. List ids
 * (`lst_<hex>`) always pass.
 */
export function assertListId(listId: string): void {
  if (typeof listId !== 'string' || listId === '' || listId.includes(':') || /^-?\d+$/.test(listId)) {
    throw new TypeError(`not a usable list id for the job queue: ${JSON.stringify(listId)}`);
  }
}

/** Refuses a concurrency that is not a whole number of at least 1. */
export function assertConcurrency(concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`consume concurrency must be a whole number >= 1, got ${concurrency}`);
  }
}

/** Checks the retry options shared by both constructors. */
export function assertRetryPolicy(attempts: number, backoffMs: number): void {
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RangeError(`attempts must be a whole number >= 1, got ${attempts}`);
  }
  if (!(Number.isFinite(backoffMs) && backoffMs >= 0)) {
    throw new RangeError(`backoffMs must be a number >= 0, got ${backoffMs}`);
  }
}
