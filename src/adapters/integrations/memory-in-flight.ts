/**
 * The in-flight limit of one process (embedded mode): a counting semaphore per key, waiters served
 * in arrival order. Scale-out needs the Redis one, shared by every process.
 */
import type { InFlightLimiter } from '../../integrations/ports.ts';

interface Slot {
  held: number;
  waiting: Array<() => void>;
}

export class MemoryInFlightLimiter implements InFlightLimiter {
  readonly #slots = new Map<string, Slot>();

  acquire(key: string, limit: number): Promise<() => void> {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = { held: 0, waiting: [] };
      this.#slots.set(key, slot);
    }
    const current = slot;
    const release = once(() => {
      const next = current.waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next !== undefined) next();
      else if (--current.held === 0) this.#slots.delete(key);
    });
    if (current.held < limit) {
      current.held += 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => current.waiting.push(() => resolve(release)));
  }
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
