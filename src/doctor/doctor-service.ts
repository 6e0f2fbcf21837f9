/**
 * The last host-check report, shared by the dashboard and the start-up log: a run at most once a
 * minute, a forced re-run at most once every few seconds, and concurrent callers share one run.
 */
import type { DoctorReport } from './finding.ts';

/** How often reports may be made. Defaults in brackets. */
export interface DoctorServiceOptions {
  /** A report younger than this is given as it is, ms [60,000]. */
  maxAgeMs?: number;
  /** A forced re-run is refused (the last report given) sooner than this after the last run began, ms [10,000]. */
  minRefreshMs?: number;
  /** Monotonic milliseconds. */
  clock?: () => number;
}

/** Keeps the last report and runs the check when it is due. */
export class DoctorService {
  readonly #run: (signal: AbortSignal) => Promise<DoctorReport>;
  readonly #stopped = new AbortController();
  readonly #maxAgeMs: number;
  readonly #minRefreshMs: number;
  readonly #clock: () => number;
  #last: { report: DoctorReport; startedAt: number } | undefined;
  #running: { startedAt: number; report: Promise<DoctorReport> } | undefined;

  constructor(run: (signal: AbortSignal) => Promise<DoctorReport>, options: DoctorServiceOptions = {}) {
    this.#run = run;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#minRefreshMs = options.minRefreshMs ?? 10_000;
    this.#clock = options.clock ?? (() => performance.now());
  }

  /** The last report, or a new one when it is older than a minute (or `refresh` and allowed). */
  async report(refresh = false): Promise<DoctorReport> {
    if (this.#running !== undefined) return this.#running.report;
    const now = this.#clock();
    const last = this.#last;
    if (last !== undefined) {
      const age = now - last.startedAt;
      if (age < (refresh ? this.#minRefreshMs : this.#maxAgeMs)) return last.report;
    }
    const report = this.#run(this.#stopped.signal)
      .then((made) => {
        this.#last = { report: made, startedAt: now };
        return made;
      })
      .finally(() => {
        this.#running = undefined;
      });
    this.#running = { startedAt: now, report };
    return report;
  }

  /** Ends a run in progress at once (shutdown): it reports what it had, and later runs do likewise. */
  close(): void {
    this.#stopped.abort();
  }
}

/** Who may read the report, and where it comes from (the dashboard's operators' panel). */
export interface DoctorAccess {
  service: Pick<DoctorService, 'report' | 'close'>;
}
