/**
 * The verification statuses in the order lists and charts show them, with the words
 * people read and the CSS custom property that colours them (styles.css, light and dark).
 */
import type { List, Status } from '../api/types';

export interface StatusInfo {
  status: Status;
  label: string;
  /** What it means for sending. */
  meaning: string;
  /** The key of this status in a list's `counts`. */
  countKey: keyof List['counts'];
  /** CSS custom property holding its colour. */
  colorVar: string;
}

export const STATUSES: readonly StatusInfo[] = [
  { status: 'VALID', label: 'Valid', meaning: 'The mailbox exists: safe to send.', countKey: 'valid' },
  {
    status: 'PROBABLY_VALID',
    label: 'Probably valid',
    meaning: 'Likely to arrive, but the mailbox could not be confirmed.',
    countKey: 'probably_valid',
  },
  { status: 'INVALID', label: 'Invalid', meaning: 'Mail to it will bounce.', countKey: 'invalid' },
  {
    status: 'INVALID_SYNTAX',
    label: 'Invalid syntax',
    meaning: 'Not a well-formed address.',
    countKey: 'invalid_syntax',
  },
  {
    status: 'INVALID_DOMAIN',
    label: 'Invalid domain',
    meaning: 'The domain does not exist.',
    countKey: 'invalid_domain',
  },
  {
    status: 'NO_MX_RECORDS',
    label: 'No mail server',
    meaning: 'The domain has no mail server of its own.',
    countKey: 'no_mx_records',
  },
  {
    status: 'DISPOSABLE',
    label: 'Disposable',
    meaning: 'A throw-away address service.',
    countKey: 'disposable',
  },
  {
    status: 'ROLE_BASED',
    label: 'Role-based',
    meaning: 'A shared mailbox such as info@ or sales@.',
    countKey: 'role_based',
  },
].map((info) => ({ ...info, colorVar: `--status-${info.countKey.replaceAll('_', '-')}` }) as StatusInfo);

const BY_STATUS = new Map(STATUSES.map((info) => [info.status, info]));

/** The words and colour of a status (an unknown status reads as itself). */
export function statusInfo(status: string): StatusInfo {
  return (
    BY_STATUS.get(status as Status) ?? {
      status: status as Status,
      label: status,
      meaning: '',
      countKey: 'processed',
      colorVar: '--muted',
    }
  );
}
