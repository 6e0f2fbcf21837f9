/**
 * Ports of the audit log: every change in an account is one entry, appended and never changed.
 * The log is the account's own record of who did what, from where; it is kept 400 days and then
 * removed by the expiry task, the only deletion there is. Adapters in `src/adapters/store/`
 * implement it on SQLite and PostgreSQL with the same queries.
 */
import type { AuditAction, AuditTargetType } from './actions.ts';

/**
 * Who can make a change: a dashboard user, an API key, an operator at the command line, or a
 * connected platform acting through its integration (a contact it deleted, erased here).
 */
export const AUDIT_ACTOR_TYPES = ['user', 'key', 'operator', 'platform'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * Who made a change; `label` is how people recognise them (an email, a key's name and prefix, a
 * platform and its account's name). A platform's `id` is its integration's.
 */
export interface AuditActor {
  type: AuditActorType;
  id: string;
  label: string;
}

/** Who makes changes, and from which address (null at the command line). */
export interface Initiator {
  actor: AuditActor;
  ip: string | null;
}

/** What a change was made to. */
export interface AuditTarget {
  type: AuditTargetType;
  id: string;
}

/** A value that survives a JSON round trip unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { [key: string]: JsonValue };

/** More about a change: for settings and limits `{before, after}` with the fields that changed. */
export type AuditDetails = { [key: string]: JsonValue };

/** One entry of an account's log. */
export interface AuditEntry {
  /** Time-ordered (`entry-id.ts`): newer entries have greater ids. */
  id: string;
  accountId: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  actor: AuditActor;
  ip: string | null;
  action: AuditAction;
  target: AuditTarget;
  details: AuditDetails;
}

/** One page of an account's log: newest first, before the entry `before` when given. */
export interface AuditQuery {
  action?: AuditAction;
  /** An entry id: only older entries. */
  before?: string;
  limit: number;
}

export interface AuditLog {
  /** Appends an entry; entries are never updated. */
  record(entry: AuditEntry): Promise<void>;
  /** The account's entries, newest first; another account's never. */
  list(accountId: string, query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Removes at most `limit` entries, of any account, recorded before `before` (ISO instant), oldest
   * first; returns how many. The expiry task's alone: nothing else deletes an entry.
   */
  deleteExpired(before: string, limit: number): Promise<number>;
}
