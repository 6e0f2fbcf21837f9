/**
 * The three categories results are written back under, whatever the platform: a
 * sender acts on valid, risky and invalid, not on eight statuses.
 */
import type { Status } from '../verification/report.ts';

export type Category = 'valid' | 'risky' | 'invalid';

export const CATEGORIES: readonly Category[] = ['valid', 'risky', 'invalid'];

/** The category of a status. */
export function categoryOf(status: Status): Category {
  switch (status) {
    case 'VALID':
      return 'valid';
    case 'PROBABLY_VALID':
    case 'ROLE_BASED':
    case 'DISPOSABLE':
      return 'risky';
    default:
      return 'invalid';
  }
}
