/**
 * Helpers for the JobQueue suites: handlers that record their runs, hand-opened gates, and waits
 * that poll until something happened (a hang guard, never a timing assertion).
 */
import type { JobHandler, JobQueue, JobRef, QueueErrorHandler } from '../../../src/jobs/ports.ts';

/** A job of `kind` (a list run unless told) on `id`. */
export const job = (id: string, kind = 'list'): JobRef => ({ kind, id });

/** Long enough for a wrong extra run to start; no timing is asserted. */
export const SETTLE_MS = 300;
/** A case that hangs fails here instead of stalling the run. */
export const CASE_TIMEOUT = { timeout: 30_000 };

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 10 ms; throws after `limitMs` (a hang guard, not a timing assertion). */
export async function waitFor(done: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > limitMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A promise opened by hand. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Records handler starts and ends; `body` decides what a run does. */
export function recorder(body: (listId: string, run: number) => unknown = () => {}) {
  const started: string[] = [];
  const finished: string[] = [];
  const count = (listId: string): number => started.filter((id) => id === listId).length;
  const handler: JobHandler = async (listId) => {
    started.push(listId);
    await body(listId, count(listId));
    finished.push(listId);
  };
  return { started, finished, count, handler };
}

/** Records what onError was told. */
export function errorLog() {
  const errors: Array<{
    listId: string | undefined;
    kind?: string;
    error: unknown;
    willRetry: boolean | undefined;
  }> = [];
  const onError: QueueErrorHandler = (failed, error, willRetry) => {
    // The kind is recorded only when it is not a list run, so list cases compare as before.
    const kind = failed !== undefined && failed.kind !== 'list' ? { kind: failed.kind } : {};
    errors.push({ listId: failed?.id, ...kind, error, willRetry });
  };
  return { errors, onError };
}

/** Enqueues `listId` until its run count reaches `runs`: a finished job may take a moment to go. */
export async function enqueueUntilRun(
  queue: JobQueue,
  listId: string,
  count: () => number,
  runs: number,
): Promise<void> {
  for (let waited = 0; count() < runs; waited += 50) {
    if (waited > 20_000) throw new Error(`${listId} never ran again`);
    await queue.enqueue(job(listId));
    await sleep(50);
  }
}
