/**
 * Work a process does every so often, registered by name: the list sweep, webhook dispatch, and
 * (next) scheduled integration runs. Every task must be safe on any number of processes at once,
 * because the store arbitrates (conditional updates, claimed rows), so each process simply runs
 * its own timers.
 */

/** A task run every `everyMs` (and once at start when `runAtStart`). */
export interface PeriodicTask {
  /** For logs: "list sweep", "webhook delivery". */
  name: string;
  everyMs: number;
  runAtStart?: boolean;
  run(): Promise<void>;
}

export type TaskLog = (level: 'warn', message: string, fields?: Record<string, unknown>) => void;

/** The registered tasks of one process, started and stopped together. */
export class PeriodicTasks {
  readonly #tasks: PeriodicTask[] = [];
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #log: TaskLog;
  #started = false;
  #closing: Promise<void> | undefined;

  constructor(log: TaskLog) {
    this.#log = log;
  }

  /** Adds a task; names are unique, and nothing is added once started. */
  register(task: PeriodicTask): this {
    if (this.#started) throw new Error(`periodic task ${task.name}: registered after start`);
    if (this.#tasks.some((known) => known.name === task.name)) {
      throw new Error(`periodic task ${task.name}: registered twice`);
    }
    if (!(Number.isFinite(task.everyMs) && task.everyMs > 0)) {
      throw new RangeError(`periodic task ${task.name}: everyMs must be > 0, got ${task.everyMs}`);
    }
    this.#tasks.push(task);
    return this;
  }

  /** The registered names, in order: for logs and tests. */
  get names(): string[] {
    return this.#tasks.map((task) => task.name);
  }

  /** Starts every task's timer (unref'd: timers alone never keep a process alive). */
  start(): void {
    if (this.#started) throw new Error('periodic tasks already started');
    this.#started = true;
    for (const task of this.#tasks) {
      const tick = this.#guarded(task);
      if (task.runAtStart === true) tick();
      const timer = setInterval(tick, task.everyMs);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  /** Stops the timers and waits for the runs in flight. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const timer of this.#timers) clearInterval(timer);
      while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    })();
    return this.#closing;
  }

  /** One run at a time per task (a slow sweep must not pile up behind itself); failures logged. */
  #guarded(task: PeriodicTask): () => void {
    let inFlight = false;
    return () => {
      if (inFlight || this.#closing !== undefined) return;
      inFlight = true;
      const run = Promise.resolve()
        .then(() => task.run())
        .catch((error: unknown) =>
          this.#log('warn', `${task.name} failed; it runs again soon`, { err: error }),
        )
        .finally(() => {
          inFlight = false;
          this.#running.delete(run);
        });
      this.#running.add(run);
    };
  }
}
