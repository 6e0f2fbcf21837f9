/**
 * The settings a run and a schedule share (which members, what to write back), read from the form
 * RunSettingsFields draws. The API checks them again; the form only catches what it can say better
 * beside the field.
 *
 * Its types are written out rather than taken from api/types, so the module stands alone for its
 * unit test (tests/web, on Node's resolution); the forms hand the settings to the typed API client,
 * so a shape that drifted from the server's fails the web typecheck there.
 */

/** Field names of the settings, as the API names them in its errors. */
export const RUN_SETTINGS_FIELDS = ['statuses', 'scope', 'stale_days', 'write_back'] as const;

/** Member statuses a run may read (archived contacts are never read). */
export type MemberStatus = 'subscribed' | 'unsubscribed' | 'cleaned' | 'pending' | 'transactional';

export const MEMBER_STATUSES: ReadonlyArray<{ status: MemberStatus; label: string }> = [
  { status: 'subscribed', label: 'Subscribed' },
  { status: 'unsubscribed', label: 'Unsubscribed' },
  { status: 'cleaned', label: 'Cleaned' },
  { status: 'pending', label: 'Pending' },
  { status: 'transactional', label: 'Transactional' },
];

export type Scope = 'all' | 'changed' | 'stale';

export const SCOPES: readonly Scope[] = ['all', 'changed', 'stale'];

/** A scope's label in a platform's word for its people ("members", "contacts"). */
export function scopeLabel(scope: Scope, members: string): string {
  const them = members.charAt(0).toUpperCase() + members.slice(1);
  if (scope === 'all') return `All ${members}`;
  if (scope === 'changed') return `${them} changed since the last completed run`;
  return `${them} not verified for a number of days`;
}

export const DEFAULT_STALE_DAYS = 90;

/** What the form starts from: a new run's defaults, or a schedule's settings. */
export interface RunSettingsValues {
  statuses: readonly string[];
  scope: Scope;
  staleDays: number;
  writeBack: { fields: boolean; tags: boolean; segments: boolean; unsubscribeInvalid: boolean } | null;
}

export const DEFAULT_RUN_SETTINGS: RunSettingsValues = {
  statuses: ['subscribed'],
  scope: 'all',
  staleDays: DEFAULT_STALE_DAYS,
  writeBack: { fields: true, tags: true, segments: true, unsubscribeInvalid: false },
};

/** A stored run's or schedule's settings as the form's starting values. */
export function settingsValuesOf(settings: {
  statuses: readonly string[];
  scope: Scope;
  stale_days: number;
  write_back: {
    fields?: boolean;
    tags?: boolean;
    segments?: boolean;
    unsubscribe_invalid?: boolean;
  } | null;
}): RunSettingsValues {
  const { write_back: writeBack } = settings;
  return {
    statuses: settings.statuses,
    scope: settings.scope,
    staleDays: settings.stale_days,
    writeBack:
      writeBack === null
        ? null
        : {
            fields: writeBack.fields ?? true,
            tags: writeBack.tags ?? true,
            segments: writeBack.segments ?? true,
            unsubscribeInvalid: writeBack.unsubscribe_invalid ?? false,
          },
  };
}

/** The settings as a run request or a schedule sends them. */
export interface RunSettingsBody {
  statuses: MemberStatus[];
  scope: Scope;
  stale_days: number;
  write_back: { fields: boolean; tags: boolean; segments: boolean; unsubscribe_invalid: boolean } | null;
}

export type ParsedSettings =
  | { ok: true; settings: RunSettingsBody }
  | { ok: false; fields: Record<string, string> };

/** The form's settings as the API takes them, or the messages of the fields at fault. */
export function parseRunSettings(form: FormData): ParsedSettings {
  const fields: Record<string, string> = {};
  const known = new Set<string>(MEMBER_STATUSES.map((each) => each.status));
  const statuses = form
    .getAll('statuses')
    .map(String)
    .filter((status): status is MemberStatus => known.has(status));
  if (statuses.length === 0) fields.statuses = 'Choose at least one status.';
  const scope = String(form.get('scope') ?? 'all') as Scope;
  let staleDays = DEFAULT_STALE_DAYS;
  if (scope === 'stale') {
    const text = String(form.get('stale_days') ?? '').trim();
    staleDays = Number(text);
    if (!/^\d+$/.test(text) || staleDays < 1 || staleDays > 3650)
      fields.stale_days = 'A whole number of days, from 1 to 3650.';
  }
  const dryRun = form.get('dry_run') !== null;
  const writeBack = dryRun
    ? null
    : {
        fields: form.get('write_fields') !== null,
        tags: form.get('write_tags') !== null,
        segments: form.get('write_segments') !== null,
        unsubscribe_invalid: form.get('unsubscribe_invalid') !== null,
      };
  if (writeBack !== null && !Object.values(writeBack).some(Boolean))
    fields.write_back = 'Choose something to write back, or make it a dry run.';
  if (Object.keys(fields).length > 0) return { ok: false, fields };
  return { ok: true, settings: { statuses, scope, stale_days: staleDays, write_back: writeBack } };
}
