/**
 * A process's share of background work (`mailvet worker`, or `mailvet serve` with its in-process
 * worker): the queue consumed with a handler per job kind, and the periodic tasks. Each domain
 * contributes its kinds and tasks; the composition root puts them together.
 */
import type { PeriodicTask, TaskLog } from './periodic-tasks.ts';
import { PeriodicTasks } from './periodic-tasks.ts';
import type { JobHandlers, JobQueue } from './ports.ts';

export interface JobRuntimeDeps {
  queue: JobQueue;
  handlers: JobHandlers;
  tasks: readonly PeriodicTask[];
  /** Jobs worked on at once by this process, all kinds together. */
  concurrency: number;
  log: TaskLog;
}

/** A running runtime; `close` stops it gracefully. */
export interface JobRuntime {
  /** The kinds this process runs and the tasks it keeps: for the start-up log. */
  readonly kinds: readonly string[];
  readonly tasks: readonly string[];
  /** Stops the tasks and the queue, after the jobs in hand finish. Idempotent. */
  close(): Promise<void>;
}

/** Starts consuming `queue` and the periodic tasks. */
export function startJobRuntime(deps: JobRuntimeDeps): JobRuntime {
  const periodic = new PeriodicTasks(deps.log);
  for (const task of deps.tasks) periodic.register(task);
  deps.queue.consume(deps.handlers, { concurrency: deps.concurrency });
  periodic.start();
  let closing: Promise<void> | undefined;
  return {
    kinds: Object.keys(deps.handlers),
    tasks: periodic.names,
    close() {
      // The tasks first: a sweep still running would otherwise enqueue into a closed queue.
      closing ??= periodic.close().then(() => deps.queue.close());
      return closing;
    },
  };
}
