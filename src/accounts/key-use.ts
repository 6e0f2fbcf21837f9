/**
 * `last_used_at` of API keys, shown in the dashboard: written at most once a minute per key and
 * process, so a busy key does not cost a write per request.
 */
import { LRUCache } from 'lru-cache';
import type { AccountStore } from './ports.ts';

const TOUCH_EVERY_MS = 60_000;

export class KeyUseRecorder {
  readonly #store: Pick<AccountStore, 'touchApiKey'>;
  readonly #touched = new LRUCache<string, number>({ max: 100_000 });
  readonly #onError: (error: unknown) => void;

  constructor(store: Pick<AccountStore, 'touchApiKey'>, onError: (error: unknown) => void) {
    this.#store = store;
    this.#onError = onError;
  }

  /** Records a use of the key now, unless one was recorded within the minute; never waits. */
  used(keyId: string, at: Date): void {
    const last = this.#touched.get(keyId);
    if (last !== undefined && at.getTime() - last < TOUCH_EVERY_MS) return;
    this.#touched.set(keyId, at.getTime());
    this.#store.touchApiKey(keyId, at).catch(this.#onError);
  }
}
