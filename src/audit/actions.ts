/**
 * The changes the audit log records, by name, with what each means and what it is about. Names are
 * `<what>.<what happened>`, past tense, so a filter reads as a sentence; clients match them exactly,
 * so a name once shipped never changes (a new kind of change is a new name). `docs/data-protection.md`
 * lists the same table, and a test holds the two together.
 */

/** What one kind of entry means, and the type of its target. */
export interface AuditActionInfo {
  /** For people: the dashboard's wording, and the docs'. */
  description: string;
  target: AuditTargetType;
}

/** What an entry can be about. */
export const AUDIT_TARGET_TYPES = [
  'account',
  'user',
  'key',
  'list',
  'integration',
  'run',
  'schedule',
  'watch',
  'address',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export const AUDIT_ACTIONS = {
  'account.created': { description: 'Account created', target: 'account' },
  'account.plan_changed': { description: 'Plan changed', target: 'account' },
  'account.limits_changed': { description: 'Account limits changed', target: 'account' },
  'account.settings_changed': { description: 'Account settings changed', target: 'account' },
  'account.exported': { description: 'Account data exported', target: 'account' },
  'user.created': { description: 'User created', target: 'user' },
  'user.signed_in': { description: 'Signed in', target: 'user' },
  'user.sign_in_failed': { description: 'Sign-in failed', target: 'user' },
  'user.signed_out': { description: 'Signed out', target: 'user' },
  'user.password_changed': { description: 'Password changed', target: 'user' },
  'user.password_reset': { description: 'Password reset by emailed link', target: 'user' },
  'user.email_confirmed': { description: 'Email address confirmed', target: 'user' },
  'user.role_changed': { description: 'User role changed', target: 'user' },
  'key.created': { description: 'API key created', target: 'key' },
  'key.updated': { description: 'API key renamed or its limits changed', target: 'key' },
  'key.revoked': { description: 'API key revoked', target: 'key' },
  'list.deleted': { description: 'List deleted', target: 'list' },
  'integration.connected': { description: 'Integration connected', target: 'integration' },
  'integration.disconnected': { description: 'Integration disconnected', target: 'integration' },
  'run.started': { description: 'Run started', target: 'run' },
  'run.cancelled': { description: 'Run cancelled', target: 'run' },
  'schedule.created': { description: 'Schedule created', target: 'schedule' },
  'schedule.updated': { description: 'Schedule changed', target: 'schedule' },
  'schedule.deleted': { description: 'Schedule deleted', target: 'schedule' },
  'watch.created': { description: 'Audience watched for new subscribers', target: 'watch' },
  'watch.deleted': { description: 'Audience no longer watched', target: 'watch' },
  'address.erased': { description: 'Address erased', target: 'address' },
} as const satisfies Record<string, AuditActionInfo>;

/** The name of a kind of change, e.g. `key.revoked`. */
export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** Every action name, in the table's order. */
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];
