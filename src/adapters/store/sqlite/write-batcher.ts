/**
 * Runs the writes that arrive in one event-loop turn in one SQLite transaction. Each write keeps
 * its own statements and result; only the commit is shared. A write that throws fails alone and
 * leaves nothing behind: each runs in a savepoint of its own, rolled back when it throws; a write
 * alone in its turn is the transaction itself, so it needs no savepoint.
 *
 * The transaction functions are made once: better-sqlite3 builds a function and its
 * BEGIN/COMMIT/SAVEPOINT statements for each `transaction()` call, which showed in the API's
 * profile when done on every flush.
 */
import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Groups synchronous write work into per-turn transactions. */
export class WriteBatcher {
  #pending: Pending[] = [];
  #scheduled = false;
  /** One write as a transaction (or, inside one, as a savepoint: better-sqlite3 nests them so). */
  readonly #one: Database.Transaction<(work: () => unknown) => unknown>;
  /** Several writes in one transaction, each in its savepoint; the outcomes in order. */
  readonly #many: Database.Transaction<(batch: readonly Pending[]) => Outcome[]>;

  readonly #afterFlush: (() => void) | undefined;

  /** `afterFlush` is told after each transaction (the store starts its checkpointer once busy). */
  constructor(connection: Database.Database, afterFlush?: () => void) {
    this.#afterFlush = afterFlush;
    this.#one = connection.transaction((work: () => unknown) => work());
    this.#many = connection.transaction((batch: readonly Pending[]) =>
      batch.map((pending): Outcome => {
        try {
          return { ok: true, value: this.#one(pending.work) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
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
    try {
      this.#commit(batch);
    } finally {
      this.#afterFlush?.();
    }
  }

  #commit(batch: readonly Pending[]): void {
    // IMMEDIATE takes the write lock up front, so another process's writer makes us wait
    // (busy_timeout) instead of failing the upgrade from a read lock half-way.
    if (batch.length === 1) {
      const only = batch[0]!;
      try {
        only.resolve(this.#one.immediate(only.work));
      } catch (error) {
        // The write threw (rolled back with it) or the transaction failed (lock timeout, disk full).
        only.reject(error);
      }
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.#many.immediate(batch);
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
