/**
 * Entries are kept 400 days, then removed: the log's one deletion. A periodic task of the job
 * runtime deletes the expired ones in batches of a bounded size, the event loop's other work
 * going on between two, and at most a bounded number of batches a run (a backlog after an upgrade
 * or a long stop is worked off over the next runs). Every process may run it at once: deleting
 * what is past twice deletes it once.
 */
import type { PeriodicTask } from '../jobs/periodic-tasks.ts';
import type { AuditLog } from './ports.ts';

/** How long an entry is kept, days. */
export const AUDIT_RETENTION_DAYS = 400;
/** How often expired entries are looked for, ms: an entry a few hours past its 400 days is harmless. */
export const AUDIT_EXPIRY_MS = 60 * 60 * 1000;
/** Entries deleted per statement, and statements per run at most. */
export const AUDIT_EXPIRY_BATCH = 1000;
const MAX_BATCHES_PER_RUN = 100;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AuditExpiryDeps {
  log: Pick<AuditLog, 'deleteExpired'>;
  now: () => Date;
  everyMs?: number;
  batch?: number;
  report: (level: 'info', message: string, fields?: Record<string, unknown>) => void;
}

/** The instant before which entries have expired at `now`. */
export function auditCutoff(now: Date): string {
  return new Date(now.getTime() - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
}

/** Deletes the entries expired at `now`, batch by batch; returns how many. */
export async function expireAuditEntries(deps: Omit<AuditExpiryDeps, 'everyMs' | 'report'>): Promise<number> {
  const batch = deps.batch ?? AUDIT_EXPIRY_BATCH;
  const cutoff = auditCutoff(deps.now());
  let removed = 0;
  for (let run = 0; run < MAX_BATCHES_PER_RUN; run++) {
    const deleted = await deps.log.deleteExpired(cutoff, batch);
    removed += deleted;
    if (deleted < batch) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}

/** The periodic task (once at start, then hourly). */
export function auditExpiryTask(deps: AuditExpiryDeps): PeriodicTask {
  return {
    name: 'audit log expiry',
    everyMs: deps.everyMs ?? AUDIT_EXPIRY_MS,
    runAtStart: true,
    run: async () => {
      const removed = await expireAuditEntries(deps);
      if (removed > 0) deps.report('info', 'expired audit log entries removed', { removed });
    },
  };
}
