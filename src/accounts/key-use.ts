/**
 * `last_used_at` of API keys, shown in the dashboard: written at most once a minute per key and
 * process, so a busy key does not cost a write per request.
 */
import { LRUCache } from 'lru-cache';
import type { AccountStore } from './ports.ts';

const TOUCH_EVERY_MS = 60_000;

export class KeyUseRecorder {
  readonly #store: Pick<AccountStore, 'touchApiKey'>;
  // Made at the first key use: an LRU allocates its whole capacity at once (about 2 MB and 15 ms
  // for 100,000 keys), which a process that serves no key should not pay at start.
  #touched: LRUCache<string, number> | undefined;
  readonly #onError: (error: unknown) => void;

  constructor(store: Pick<AccountStore, 'touchApiKey'>, onError: (error: unknown) => void) {
    this.#store = store;
    this.#onError = onError;
  }

  /** Records a use of the key now, unless one was recorded within the minute; never waits. */
  used(keyId: string, at: Date): void {
    this.#touched ??= new LRUCache<string, number>({ max: 100_000 });
    const last = this.#touched.get(keyId);
    if (last !== undefined && at.getTime() - last < TOUCH_EVERY_MS) return;
    this.#touched.set(keyId, at.getTime());
    this.#store.touchApiKey(keyId, at).catch(this.#onError);
  }
}
