/**
 * Runs the writes that arrive in one event-loop turn in one SQLite transaction. Each write keeps
 * its own statements and result; only the commit is shared. A write that throws fails alone and
 * leaves nothing behind: each runs in a savepoint of its own, rolled back when it throws.
 */
import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Groups synchronous write work into per-turn transactions. */
export class WriteBatcher {
  readonly #connection: Database.Database;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(connection: Database.Database) {
    this.#connection = connection;
  }

  /** Queues `work` (synchronous statements) for this turn's transaction. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    this.#scheduled = false;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // IMMEDIATE takes the write lock up front, so another process's writer makes us wait
      // (busy_timeout) instead of failing the upgrade from a read lock half-way.
      this.#connection
        .transaction(() => {
          for (const pending of batch) {
            try {
              // Inside a transaction, better-sqlite3 runs a nested one as a SAVEPOINT.
              outcomes.push({ ok: true, value: this.#connection.transaction(pending.work)() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      // The transaction itself failed (lock timeout, disk full): nothing was written.
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }
}
