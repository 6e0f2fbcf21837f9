/**
 * When the store's checkpointer thread starts: after the first `BUSY_AFTER` write transactions,
 * not at start. An idle server (or one that writes a little) keeps SQLite's own checkpoints, which
 * then cost nothing worth a thread (a worker thread is a V8 instance: megabytes of resident memory
 * for nothing); once writes are busy (a list job, API traffic) checkpoints leave the event loop.
 */
import type Database from 'better-sqlite3';
import { type Checkpointer, type CheckpointerOptions, startCheckpointer } from './checkpointer.ts';

/** Write transactions before the checkpointer starts. */
export const BUSY_AFTER = 200;
/** The WAL file is cut back to this once a checkpoint emptied it (it is reused, not regrown). */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

export class BackgroundCheckpoints {
  readonly #connection: Database.Database;
  readonly #options: CheckpointerOptions & { busyAfter?: number };
  #writes = 0;
  #checkpointer: Checkpointer | undefined;
  #stopped = false;

  constructor(connection: Database.Database, options: CheckpointerOptions & { busyAfter?: number } = {}) {
    this.#connection = connection;
    this.#options = options;
  }

  /** Counts a write transaction; the one that makes writes busy starts the checkpointer. */
  wrote(): void {
    if (this.#checkpointer !== undefined || this.#stopped) return;
    this.#writes += 1;
    if (this.#writes < (this.#options.busyAfter ?? BUSY_AFTER)) return;
    this.#checkpointer = startCheckpointer(this.#connection.name, this.#options);
    this.#connection.pragma('wal_autocheckpoint = 0');
    this.#connection.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  }

  /** A checkpoint on the thread now, when it runs (tests); settles once done. */
  async checkpointNow(): Promise<void> {
    await this.#checkpointer?.nudge();
  }

  /** Whether checkpoints run on the worker thread now. */
  get running(): boolean {
    return this.#checkpointer !== undefined;
  }

  /** Ends the thread; the connection's own close then checkpoints what is left. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#checkpointer?.stop();
  }
}
