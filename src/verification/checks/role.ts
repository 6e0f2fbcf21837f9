/**
 * Role-based local parts: shared or functional mailboxes (info@, no-reply@, buchhaltung@) that no
 * single person owns. Names live folded in `data/role-names.json`; see its `_comment` for sources
 * and for the names left out on purpose.
 */
import roleData from '../data/role-names.json' with { type: 'json' };

const ROLE_NAMES: ReadonlySet<string> = new Set(Object.values(roleData.groups).flat());

/**
 * Local parts longer than this (before any `+tag`) are never role names, however many separators they hold. RFC 5321
 * allows 64 octets; the margin keeps odd but harmless input working and 1 MB strings cheap.
 */
const MAX_LOCAL_PART_LENGTH = 256;

const SEPARATOR = /[-_.]/;
const SEPARATORS = /[-_.]/g;

/** Folds a local part the way role names are stored: lower-case, `+tag` cut, `-`, `_` and `.` removed. */
export function foldLocalPart(localPart: string): string {
  let name = localPart;
  // `"info"@example.com` is the same mailbox as `info@example.com` (RFC 5321 §4.1.2).
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1);
  const plus = name.indexOf('+');
  if (plus !== -1) name = name.slice(0, plus);
  name = name.toLowerCase();
  return SEPARATOR.test(name) ? name.replace(SEPARATORS, '') : name;
}

/** Whether the local part names a role (after folding) rather than a person. */
export function isRoleLocalPart(localPart: string): boolean {
  const plus = localPart.indexOf('+');
  const nameLength = plus === -1 ? localPart.length : plus;
  if (nameLength === 0 || nameLength > MAX_LOCAL_PART_LENGTH) return false;
  return ROLE_NAMES.has(foldLocalPart(localPart));
}

/** How many role names are loaded (for tests and start-up logs). */
export function roleNameCount(): number {
  return ROLE_NAMES.size;
}
