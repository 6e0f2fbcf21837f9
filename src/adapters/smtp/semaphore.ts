/**
 * A counting semaphore, for the per-MX-host and global caps on open probe sessions.
 */
export class Semaphore {
  #available: number;
  readonly #waiting: Array<() => void> = [];

  constructor(permits: number) {
    this.#available = Math.max(1, permits);
  }

  /** Waits for a permit; call the returned function once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.#available > 0) this.#available -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#available += 1;
    };
  }
}

/** Semaphores created on demand per key (an MX host's address), dropped when idle. */
export class KeyedSemaphores {
  readonly #permits: number;
  readonly #byKey = new Map<string, { semaphore: Semaphore; users: number }>();

  constructor(permits: number) {
    this.#permits = permits;
  }

  /** Waits for a permit for `key`; the returned function gives it back. */
  async acquire(key: string): Promise<() => void> {
    let entry = this.#byKey.get(key);
    if (entry === undefined) {
      entry = { semaphore: new Semaphore(this.#permits), users: 0 };
      this.#byKey.set(key, entry);
    }
    entry.users += 1;
    const release = await entry.semaphore.acquire();
    const held = entry;
    return () => {
      release();
      held.users -= 1;
      if (held.users === 0) this.#byKey.delete(key);
    };
  }
}
