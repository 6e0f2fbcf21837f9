/**
 * The one database every domain's store port is served by: accounts, usage and list jobs share
 * it (and its transactions), so the composition root opens one and hands each domain its part.
 */
import type { AccountStore, UserStore } from './accounts/ports.ts';
import type { AuditLog } from './audit/ports.ts';
import type { FeedbackStore } from './feedback/ports.ts';
import type { IntegrationStore } from './integrations/ports.ts';
import type { RunStore } from './integrations/runs/ports.ts';
import type { ScheduleStore } from './integrations/schedules/ports.ts';
import type { ListStore } from './lists/ports.ts';
import type { DataProtectionStore } from './privacy/ports.ts';
import type { UsageStore } from './usage/ports.ts';

/** Everything the API needs from its database. */
export interface Store extends AccountStore, UsageStore {
  /** Which backend: for logs and /readyz. */
  readonly kind: 'sqlite' | 'postgres';
  /** List jobs, on the same database. */
  readonly lists: ListStore;
  /** Dashboard users and sessions, on the same database. */
  readonly users: UserStore;
  /** Connected email platforms, on the same database. */
  readonly integrations: IntegrationStore;
  /** Runs of those integrations (audiences read, verified, written back). */
  readonly runs: RunStore;
  /** Schedules of runs, claimed slot by slot. */
  readonly schedules: ScheduleStore;
  /** Senders' reported outcomes (bounces, deliveries), per account. */
  readonly feedback: FeedbackStore;
  /** Every change in an account, appended (the audit log). */
  readonly audit: AuditLog;
  /** Retention, erasure and export of an account's data. */
  readonly privacy: DataProtectionStore;
  /** Throws when the database cannot be reached (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
