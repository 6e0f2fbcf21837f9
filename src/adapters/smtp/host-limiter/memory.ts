/**
 * The cap on open SMTP sessions per MX host address. Embedded mode caps per process (an in-memory
 * semaphore); scale-out mode caps across every process (Redis, `redis.ts` beside this file), so adding
 * workers never multiplies the connections one mail server sees.
 */
import { KeyedSemaphores } from '../semaphore.ts';

/** Grants session slots per MX host address. */
export interface HostSessionLimiter {
  /**
   * Waits for a slot at `hostIp`, at most `waitMs` (the limiter's own bound when omitted); call the
   * returned function to give it back (calling it again does nothing). Rejects with
   * {@link HostBusyError} when no slot frees up in time.
   */
  acquire(hostIp: string, waitMs?: number): Promise<() => void>;
}

/** No slot at this host freed up within the limiter's wait limit: try another host. */
export class HostBusyError extends Error {
  constructor(readonly hostIp: string) {
    super(`no session slot free at ${hostIp}`);
    this.name = 'HostBusyError';
  }
}

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
