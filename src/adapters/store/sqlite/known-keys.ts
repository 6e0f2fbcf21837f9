/**
 * The keys this process has authenticated, kept for as long as the database says nothing changed.
 * The key-and-account lookup was a third of a cached verification's CPU; reading SQLite's
 * `PRAGMA data_version` instead costs a fraction of it. That number moves whenever another
 * connection commits (`mailvet keys revoke` from the command line, another process on the same
 * file), so a key revoked there is refused on the next request here; this store's own key and
 * account writes clear the cache themselves. Unknown keys are never kept: guessing fills nothing.
 */
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { KeyWithAccount } from '../../../accounts/ports.ts';

/** Keys kept at most: far above the keys one process sees in use at once. */
const MAX_KEYS = 10_000;

export class KnownKeys {
  readonly #dataVersion: Database.Statement;
  readonly #keys = new LRUCache<string, KeyWithAccount>({ max: MAX_KEYS });
  #seenVersion: unknown;

  constructor(connection: Database.Database) {
    this.#dataVersion = connection.prepare('PRAGMA data_version').pluck();
  }

  /** The key and account of `keyHash` when known and nothing changed since; else undefined. */
  get(keyHash: string): KeyWithAccount | undefined {
    const version = this.#dataVersion.get();
    if (version !== this.#seenVersion) {
      this.#keys.clear();
      this.#seenVersion = version;
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
