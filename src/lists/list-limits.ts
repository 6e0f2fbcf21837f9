/**
 * An account's room for another list: its plan caps the rows it keeps stored and its unfinished
 * lists, so one customer cannot fill the disk every customer shares.
 */
import type { AccountStorage } from './ports.ts';

/** The plan's figures that bound list storage. */
export interface ListStorageLimits {
  maxStoredRows: number;
  maxUnfinishedLists: number;
}

/** An upload refused for the account's storage: which cap, and a message for the caller. */
export class ListLimitError extends Error {
  readonly limit: 'stored_rows' | 'unfinished_lists';

  constructor(limit: ListLimitError['limit'], message: string) {
    super(message);
    this.name = 'ListLimitError';
    this.limit = limit;
  }
}

/**
 * How many rows another upload may hold, given what the account keeps.
 * @throws ListLimitError when it has no room at all.
 */
export function rowAllowance(storage: AccountStorage, limits: ListStorageLimits): number {
  if (storage.unfinishedLists >= limits.maxUnfinishedLists) {
    throw new ListLimitError(
      'unfinished_lists',
      `The account has ${storage.unfinishedLists} unfinished lists, as many as its plan allows: ` +
        'wait for one to finish, or cancel or delete one',
    );
  }
  if (storage.storedRows >= limits.maxStoredRows) throw storedRowsError(limits.maxStoredRows);
  return limits.maxStoredRows - storage.storedRows;
}

/** The refusal of an upload that would take the account past its stored rows. */
export function storedRowsError(maxStoredRows: number): ListLimitError {
  return new ListLimitError(
    'stored_rows',
    `The account's lists would hold more than the ${maxStoredRows} rows its plan allows: ` +
      'delete lists it no longer needs (finished lists are also deleted after the retention period)',
  );
}
