/**
 * The keys this process has authenticated, kept while the database says nothing changed. The
 * key-and-account lookup was a third of a cached verification's CPU, nearly all of it the start
 * of its read transaction (SQLite's WAL read lock), which any statement pays. So the store reads
 * `PRAGMA data_version` at most every CHECK_INTERVAL_MS: that number moves whenever another
 * connection commits (`mailvet keys revoke` from the command line, another process on the same
 * file), and then every kept key is dropped. A key revoked elsewhere is thus refused within
 * 100 ms; this store's own key and account writes clear the keys at once. Unknown keys are never
 * kept: guessing fills nothing.
 */
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { KeyWithAccount } from '../../../accounts/ports.ts';

/**
 * How long an answer stands before the data version is read again. Reading it starts a read
 * transaction, and that start (SQLite's WAL read lock) is what the lookup cost, not the query.
 */
export const CHECK_INTERVAL_MS = 100;

/** Keys kept at most: far above the keys one process sees in use at once. */
const MAX_KEYS = 10_000;

export class KnownKeys {
  readonly #dataVersion: Database.Statement;
  readonly #keys = new LRUCache<string, KeyWithAccount>({ max: MAX_KEYS });
  #seenVersion: unknown;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(connection: Database.Database) {
    this.#dataVersion = connection.prepare('PRAGMA data_version').pluck();
  }

  /** The key and account of `keyHash` when known and nothing changed since; else undefined. */
  get(keyHash: string): KeyWithAccount | undefined {
    const now = performance.now();
    if (now - this.#checkedAt >= CHECK_INTERVAL_MS) {
      const version = this.#dataVersion.get();
      this.#checkedAt = now;
      if (version !== this.#seenVersion) {
        this.#keys.clear();
        this.#seenVersion = version;
      }
    }
    return this.#keys.get(keyHash);
  }

  /** Keeps what the database just answered (call right after `get`, with no await between). */
  set(keyHash: string, found: KeyWithAccount): void {
    this.#keys.set(keyHash, found);
  }

  /** Forgets every key: this process changed a key or an account. */
  forget(): void {
    this.#keys.clear();
  }
}
