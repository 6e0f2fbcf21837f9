/**
 * Expired sessions are refused when they come back (sessions.ts), but nothing else removes them: a
 * browser that never returns would leave its row forever. This periodic task deletes them, and the
 * emailed links nobody followed in time; every process may run it at once (a delete of what is
 * past is the same done twice).
 */
import type { PeriodicTask } from '../jobs/periodic-tasks.ts';
import type { UserStore } from './ports.ts';

/** How often expired sessions are removed, ms: they are harmless meanwhile, only clutter. */
export const SESSION_SWEEP_MS = 60 * 60 * 1000;

export interface SessionSweepDeps {
  users: Pick<UserStore, 'deleteExpiredSessions' | 'deleteExpiredUserTokens'>;
  now: () => Date;
  everyMs?: number;
  log: (level: 'info', message: string, fields?: Record<string, unknown>) => void;
}

/** The periodic task that deletes expired sessions (once at start, then hourly). */
export function sessionSweepTask(deps: SessionSweepDeps): PeriodicTask {
  return {
    name: 'session sweep',
    everyMs: deps.everyMs ?? SESSION_SWEEP_MS,
    runAtStart: true,
    run: async () => {
      const now = deps.now().toISOString();
      const removed = await deps.users.deleteExpiredSessions(now);
      if (removed > 0) deps.log('info', 'expired sessions removed', { removed });
      const links = await deps.users.deleteExpiredUserTokens(now);
      if (links > 0) deps.log('info', 'expired emailed links removed', { removed: links });
    },
  };
}
