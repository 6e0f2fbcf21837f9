/**
 * The cap on open SMTP sessions per MX host address. Embedded mode caps per process (an in-memory
 * semaphore); scale-out mode caps across every process (Redis, `redis.ts` beside this file), so adding
 * workers never multiplies the connections one mail server sees.
 */
import { HostBusyError, type HostSessionLimiter } from '../ports.ts';
import { KeyedSemaphores } from '../semaphore.ts';

/** The per-process limiter: KeyedSemaphores behind the port. */
export class MemoryHostLimiter implements HostSessionLimiter {
  readonly #semaphores: KeyedSemaphores;

  constructor(permits: number) {
    this.#semaphores = new KeyedSemaphores(permits);
  }

  /** Waits for one of this process's slots at `hostIp`, at most `waitMs` (unbounded when omitted). */
  async acquire(hostIp: string, waitMs?: number): Promise<() => void> {
    const release = await this.#semaphores.acquire(hostIp, waitMs);
    if (release === null) throw new HostBusyError(hostIp);
    return release;
  }
}
