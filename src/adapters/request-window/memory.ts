/**
 * The rolling request window of one process (embedded mode): the instants of the requests of the
 * last window per key. Scale-out needs the Redis one, shared by every process.
 */
import type { RequestWindow } from '../../integrations/ports.ts';

export class MemoryRequestWindow implements RequestWindow {
  readonly #sent = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  reserve(key: string, limit: number, windowMs: number): Promise<number> {
    const now = this.#now();
    const recent = (this.#sent.get(key) ?? []).filter((at) => at > now - windowMs);
    if (recent.length >= limit) {
      this.#sent.set(key, recent);
      // Room comes when the oldest request of the window leaves it.
      return Promise.resolve(recent[recent.length - limit]! + windowMs - now + 1);
    }
    recent.push(now);
    this.#sent.set(key, recent);
    return Promise.resolve(0);
  }
}
