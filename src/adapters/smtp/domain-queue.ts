/**
 * The probes waiting for one domain's sessions. Probes that arrive together (a bulk request, a
 * list) queue here and are asked over shared sessions. The queue knows who still waits for an
 * answer: once nobody does, every session being opened or used for it is cancelled (its socket
 * closed), so a probe that timed out leaves nothing running behind it.
 */
import type { ProbeRequest } from '../../verification/ports.ts';
import type { MxRecord, SmtpCheck } from '../../verification/report.ts';

/** One probe waiting for its answer. */
export interface Waiting {
  request: ProbeRequest;
  resolve: (check: SmtpCheck) => void;
}

/** A domain's waiting probes and the workers (sessions) serving them. */
export class DomainQueue {
  readonly mxHosts: MxRecord[];
  /** Probes not yet handed to a session, first come first served. */
  readonly waiting: Waiting[] = [];
  workers = 0;
  /** Workers in the middle of a transaction; the others share what waits. */
  asking = 0;
  // Waiting or in a session's transaction, not yet answered.
  readonly #unanswered = new Set<Waiting>();
  readonly #workerSignals = new Set<AbortController>();
  // Sessions waiting a moment for more probes before they quit.
  readonly #arrivals = new Set<() => void>();

  constructor(mxHosts: MxRecord[]) {
    this.mxHosts = mxHosts;
  }

  /** Queues a probe; `answer` is called with its check (at most once through the queue). */
  enqueue(request: ProbeRequest, answer: (check: SmtpCheck) => void): Waiting {
    const waiting: Waiting = {
      request,
      resolve: (check) => {
        if (!this.#unanswered.delete(waiting)) return;
        answer(check);
      },
    };
    this.#unanswered.add(waiting);
    this.waiting.push(waiting);
    for (const arrived of this.#arrivals) arrived();
    return waiting;
  }

  /**
   * Resolves true as soon as a probe is queued, false after `ms` or once `signal` aborts: an idle
   * session waits this long for the next probes of a list before it quits, instead of closing a
   * connection the next batch would open again.
   */
  arrival(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.waiting.length > 0) return Promise.resolve(true);
    if (signal.aborted || ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (arrived: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.#arrivals.delete(arrivedNow);
        resolve(arrived);
      };
      const arrivedNow = () => finish(true);
      const aborted = () => finish(false);
      const timer = setTimeout(() => finish(false), ms);
      signal.addEventListener('abort', aborted, { once: true });
      this.#arrivals.add(arrivedNow);
    });
  }

  /** A probe gave up waiting; when it was the last one, the workers are cancelled. */
  leave(waiting: Waiting): void {
    const at = this.waiting.indexOf(waiting);
    if (at >= 0) this.waiting.splice(at, 1);
    this.#unanswered.delete(waiting);
    if (this.#unanswered.size === 0) for (const worker of this.#workerSignals) worker.abort();
  }

  /** Registers a worker; its signal aborts once nobody waits for an answer. Call `done` at its end. */
  startWorker(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    this.#workerSignals.add(controller);
    this.workers += 1;
    return {
      signal: controller.signal,
      done: () => {
        this.#workerSignals.delete(controller);
        this.workers -= 1;
      },
    };
  }

  /** How many waiting probes a worker free to ask takes: an even share among the free workers. */
  get share(): number {
    return Math.ceil(this.waiting.length / Math.max(1, this.workers - this.asking));
  }

  /** True when nothing waits and no worker runs: the queue can be dropped. */
  get idle(): boolean {
    return this.workers === 0 && this.waiting.length === 0;
  }
}
