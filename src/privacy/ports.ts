/**
 * Ports of data protection: how long an account's list results are kept (retention), how one
 * address is erased from everything an account holds (erasure), and the pages an export of the
 * account reads. Adapters in `src/adapters/store/` implement them on SQLite and PostgreSQL with
 * the same queries; the audit log, the other part of data protection, has its own folder.
 */

/** An account whose finished lists still keep results, and what decides how long. */
export interface AccountWithKeptResults {
  accountId: string;
  plan: string;
  /** The account's own setting; null: the server's default. */
  retentionDays: number | null;
  /** When the oldest of its finished lists with results ended (ISO-8601). */
  oldestFinishedAt: string;
}

/** Where finished lists' results are deleted when their retention is over. */
export interface RetentionStore {
  /** Every account with a finished list whose results are kept. */
  accountsWithKeptResults(): Promise<AccountWithKeptResults[]>;
  /** The account's finished lists with results kept that ended before `before`, oldest first. */
  listsEndedBefore(accountId: string, before: Date, limit: number): Promise<string[]>;
  /**
   * Marks the list's results expired at `at` (the list stays, with its counts); false when another
   * process did first or the list is gone. Downloads answer 410 from then on.
   */
  markResultsExpired(listId: string, at: Date): Promise<boolean>;
  /** Lists marked expired that still hold rows (a process stopped while deleting them). */
  expiredListsWithRows(limit: number): Promise<string[]>;
  /**
   * Deletes at most `limit` of the list's rows, then of its addresses (by their keys, in one short
   * statement); returns how many went, 0 once none is left.
   */
  deleteResultSlice(listId: string, limit: number): Promise<number>;
  /** Gives freed space back for reuse (SQLite: `incremental_vacuum` of up to `pages`; PostgreSQL: nothing, autovacuum does). */
  reclaimSpace(pages: number): Promise<void>;
}

/** An address as lists and feedback store it. */
export interface ErasedAddress {
  /** The list identity (`addressKey`): NFC local part, ASCII lower-case domain. */
  addressKey: string;
  /** Its domain, as lists group it (`domainOfKey`). */
  domain: string;
  /** The feedback identity (`feedbackAddressOf`), null when the address is not valid syntax. */
  feedbackAddress: string | null;
}

/** Where an account's copies of an address are erased. */
export interface ErasureStore {
  /**
   * Blanks the address in every list of the account: each of its rows stays (counted, numbered) with
   * its address and other columns replaced, and its result is deleted. Returns the rows blanked.
   */
  eraseFromLists(accountId: string, address: ErasedAddress): Promise<number>;
  /** Deletes the account's feedback events of the address; returns how many. */
  eraseFeedback(accountId: string, feedbackAddress: string): Promise<number>;
  /**
   * Forgets the address of the account's watched platform members (kept so a platform's deletion
   * naming only a member id can be acted on); the members stay claimed.
   */
  eraseFromWatches(accountId: string, addressKey: string): Promise<void>;
}

/** One stored feedback event, as an export shows it. */
export interface FeedbackExportRow {
  email: string;
  event: string;
  at: string;
  createdAt: string;
}

/** The pages an export reads that no other port serves. */
export interface ExportStore {
  /** The account's feedback events in a stable order, `limit` after `after` (the last one seen). */
  feedbackPage(
    accountId: string,
    after: { email: string; event: string; at: string } | null,
    limit: number,
  ): Promise<FeedbackExportRow[]>;
}

/** Data protection's share of the store. */
export interface DataProtectionStore extends RetentionStore, ErasureStore, ExportStore {}

/** What `[erased]` replaces: the address and every cell of its row. */
export const ERASED_MARK = '[erased]';
