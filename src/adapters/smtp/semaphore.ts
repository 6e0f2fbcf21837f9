/**
 * A counting semaphore, for the per-MX-host and global caps on open probe sessions.
 */
export class Semaphore {
  #available: number;
  readonly #waiting: Array<() => void> = [];

  constructor(permits: number) {
    this.#available = Math.max(1, permits);
  }

  /**
   * Waits for a permit; call the returned function once to give it back. With `waitMs`, gives up
   * after that long, or when `signal` aborts, and resolves null (the caller holds nothing).
   */
  async acquire(): Promise<() => void>;
  async acquire(waitMs: number, signal?: AbortSignal): Promise<(() => void) | null>;
  async acquire(waitMs?: number, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return null;
    if (this.#available > 0) this.#available -= 1;
    else if (!(await this.#wait(waitMs, signal))) return null;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#available += 1;
    };
  }

  /** Resolves true when handed a permit, false when `waitMs` passed or `signal` aborted first. */
  #wait(waitMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const granted = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(true);
      };
      const giveUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        const at = this.#waiting.indexOf(granted);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      this.#waiting.push(granted);
      signal?.addEventListener('abort', giveUp, { once: true });
      const timer = waitMs === undefined ? undefined : setTimeout(giveUp, Math.max(0, waitMs));
    });
  }
}

/** Semaphores created on demand per key (an MX host's address), dropped when idle. */
export class KeyedSemaphores {
  readonly #permits: number;
  readonly #byKey = new Map<string, { semaphore: Semaphore; users: number }>();

  constructor(permits: number) {
    this.#permits = permits;
  }

  /** Waits for a permit for `key` (at most `waitMs`: null then); the returned function gives it back. */
  async acquire(key: string, waitMs?: number): Promise<(() => void) | null> {
    let entry = this.#byKey.get(key);
    if (entry === undefined) {
      entry = { semaphore: new Semaphore(this.#permits), users: 0 };
      this.#byKey.set(key, entry);
    }
    entry.users += 1;
    const held = entry;
    const release =
      waitMs === undefined ? await held.semaphore.acquire() : await held.semaphore.acquire(waitMs);
    if (release === null) {
      held.users -= 1;
      if (held.users === 0) this.#byKey.delete(key);
      return null;
    }
    return () => {
      release();
      held.users -= 1;
      if (held.users === 0) this.#byKey.delete(key);
    };
  }
}
