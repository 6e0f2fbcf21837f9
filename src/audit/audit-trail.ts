/**
 * Recording changes and reading them back. Whoever changes something in an account (a service
 * told who acts, a route, a command) calls `record` once the change is made; the trail stamps the
 * entry with its id and time. An entry is recorded after its change: a change that failed leaves
 * none, and a failed record is the caller's error like any other write.
 */
import { AUDIT_ACTIONS, type AuditAction } from './actions.ts';
import { newEntryId } from './entry-id.ts';
import type { AuditDetails, AuditEntry, AuditLog, AuditQuery, Initiator, JsonValue } from './ports.ts';

export interface AuditTrailDeps {
  log: AuditLog;
  now?: () => Date;
}

/** One change, as its maker tells it. */
export interface Change {
  action: AuditAction;
  /** The id of what changed; its type is the action's (`AUDIT_ACTIONS`). */
  targetId: string;
  details?: AuditDetails;
}

export class AuditTrail {
  readonly #log: AuditLog;
  readonly #now: () => Date;

  constructor(deps: AuditTrailDeps) {
    this.#log = deps.log;
    this.#now = deps.now ?? (() => new Date());
  }

  /** Appends the change to the account's log; returns the entry as stored. */
  async record(accountId: string, by: Initiator, change: Change): Promise<AuditEntry> {
    const at = this.#now();
    const entry: AuditEntry = {
      id: newEntryId(at),
      accountId,
      at: at.toISOString(),
      actor: by.actor,
      ip: by.ip,
      action: change.action,
      target: { type: AUDIT_ACTIONS[change.action].target, id: change.targetId },
      details: change.details ?? {},
    };
    await this.#log.record(entry);
    return entry;
  }

  /** A page of the account's log, newest first. */
  page(accountId: string, query: AuditQuery): Promise<AuditEntry[]> {
    return this.#log.list(accountId, query);
  }
}

/**
 * Records the change when a trail is set and the caller said who acts. Services record through it:
 * what a service does on its own (a schedule starting a run) has no initiator, and no entry.
 */
export async function recordChange(
  trail: AuditTrail | undefined,
  accountId: string,
  by: Initiator | undefined,
  change: Change,
): Promise<void> {
  if (trail === undefined || by === undefined) return;
  await trail.record(accountId, by, change);
}

/**
 * `{before, after}` with only the fields whose values differ; null when none does (a change that
 * changed nothing is not recorded as one).
 */
export function changedFields<T extends Record<string, JsonValue | undefined>>(
  before: T,
  after: T,
): { before: AuditDetails; after: AuditDetails } | null {
  const was: AuditDetails = {};
  const is: AuditDetails = {};
  for (const field of Object.keys(after)) {
    const [old, now] = [before[field] ?? null, after[field] ?? null];
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    was[field] = old;
    is[field] = now;
  }
  return Object.keys(is).length === 0 ? null : { before: was, after: is };
}
