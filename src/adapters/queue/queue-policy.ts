/**
 * What both JobQueue implementations agree on, kept in one place so embedded and scale-out mode
 * behave alike: the retry policy, which jobs a queue accepts, and how failures are reported.
 */
import type { JobHandler, JobHandlers, JobRef, QueueErrorHandler } from '../../jobs/ports.ts';

/** Runs of one enqueue before it is given up, the first included (BullMQ's `attempts`). */
export const DEFAULT_ATTEMPTS = 5;

/** Delay before the first retry; each further retry waits twice as long (1 s, 2 s, 4 s, 8 s). */
export const DEFAULT_BACKOFF_MS = 1_000;

/** Calls `onError` and swallows what it throws: a broken logger must not break the queue. */
export function reportError(
  onError: QueueErrorHandler | undefined,
  job: JobRef | undefined,
  error: unknown,
  willRetry?: boolean,
): void {
  try {
    onError?.(job, error, willRetry);
  } catch {
    // Nowhere left to report it.
  }
}

/** The backoff before retry number `failures` (1 after the first failure): base × 2^(failures-1). */
export function backoffDelay(baseMs: number, failures: number): number {
  return baseMs * 2 ** (failures - 1);
}

/**
 * Refuses jobs BullMQ cannot carry (an id that is an integer, or with `:` or `.`, which would blur
 * the `kind.id` job key), and empty ones, in both implementations, so a job that works embedded
 * cannot fail only in scale-out. List ids (`lst_<hex>`) always pass.
 */
export function assertJob(job: JobRef): void {
  const { kind, id } = job ?? {};
  if (typeof kind !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(kind)) {
    throw new TypeError(`not a usable job kind: ${JSON.stringify(kind)}`);
  }
  if (typeof id !== 'string' || id === '' || /[:.]/.test(id) || /^-?\d+$/.test(id)) {
    throw new TypeError(`not a usable job id for the job queue: ${JSON.stringify(id)}`);
  }
}

/** The handler of `kind`; throws (a failure like any other, so retried and reported) when none. */
export function handlerFor(handlers: JobHandlers, kind: string): JobHandler {
  const handler = Object.hasOwn(handlers, kind) ? handlers[kind] : undefined;
  if (handler === undefined)
    throw new Error(`no handler for jobs of kind ${JSON.stringify(kind)} in this process`);
  return handler;
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
