/**
 * An audit entry in words: what happened (one phrase per action, every action named, so a new one
 * fails the typecheck until it has its words), who did it, and what changed. `before`/`after`
 * details read "field: old → new"; other details "field: value".
 */
import type { AuditAction, AuditEntry } from '../api/types';

export const ACTION_LABELS: Record<AuditAction, string> = {
  'account.created': 'Account created',
  'account.plan_changed': 'Plan changed',
  'account.limits_changed': 'Account limits changed',
  'account.settings_changed': 'Account settings changed',
  'account.exported': 'Account data exported',
  'user.created': 'User created',
  'user.signed_in': 'Signed in',
  'user.sign_in_failed': 'Sign-in failed',
  'user.signed_out': 'Signed out',
  'user.password_changed': 'Password changed',
  'user.password_reset': 'Password reset by emailed link',
  'user.email_confirmed': 'Email address confirmed',
  'user.role_changed': 'User role changed',
  'key.created': 'API key created',
  'key.updated': 'API key changed',
  'key.revoked': 'API key revoked',
  'list.deleted': 'List deleted',
  'integration.connected': 'Integration connected',
  'integration.disconnected': 'Integration disconnected',
  'run.started': 'Run started',
  'run.cancelled': 'Run cancelled',
  'schedule.created': 'Schedule created',
  'schedule.updated': 'Schedule changed',
  'schedule.deleted': 'Schedule deleted',
  'watch.created': 'Audience watched',
  'watch.deleted': 'Audience no longer watched',
  'address.erased': 'Address erased',
};

/** Every action, in the order the filter offers them. */
export const ACTIONS = Object.keys(ACTION_LABELS) as AuditAction[];

const ACTOR_KINDS: Record<AuditEntry['actor']['type'], string> = {
  user: 'User',
  key: 'API key',
  operator: 'Operator',
  platform: 'Platform',
};

/** Who made the change: "API key · CRM sync (mv_live_Ab3…)". */
export function actorText(actor: AuditEntry['actor']): string {
  return `${ACTOR_KINDS[actor.type]} · ${actor.label}`;
}

/** A value of the details as people read it. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  return Object.entries(value as Record<string, unknown>)
    .map(([field, inner]) => `${field} ${valueText(inner)}`)
    .join(', ');
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The details, one line per field. */
export function detailLines(details: AuditEntry['details']): string[] {
  const { before, after, ...rest } = details;
  const lines = Object.entries(rest).map(([field, value]) => `${field}: ${valueText(value)}`);
  if (isRecord(before) && isRecord(after)) {
    for (const field of Object.keys(after)) {
      lines.push(`${field}: ${valueText(before[field])} → ${valueText(after[field])}`);
    }
  }
  return lines;
}
