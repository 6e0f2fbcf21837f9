/**
 * The store port for list jobs. A list's state, its rows and every result live here,
 * never only in the queue, so any process can pick a list up where another stopped. Adapters in
 * `src/adapters/store/` implement it on SQLite and PostgreSQL; one contract suite runs on both.
 */
import type { JobRef } from '../jobs/ports.ts';
import type { UsageMonth } from '../usage/months.ts';
import type { Ceiling, UsageOwner, Used } from '../usage/ports.ts';
import type { Status, VerificationResult } from '../verification/report.ts';
import type { WebhookOutbox } from '../webhooks/ports.ts';

/** The job kind of list runs. */
export const LIST_JOB = 'list';

/** The job that runs list `listId`. */
export function listJob(listId: string): JobRef {
  return { kind: LIST_JOB, id: listId };
}

/** The states a client sees. `uploading` is internal: a list is hidden until its upload is whole. */
export const LIST_STATES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type ListState = (typeof LIST_STATES)[number];

/** Why a list stopped before its end. */
export type PauseReason = 'user' | 'quota';

/** Row counts of a list; per-status counts are of rows (a duplicate row counts again). */
export interface ListCounts {
  total: number;
  unique: number;
  processed: number;
  byStatus: Record<Status, number>;
}

/** A list job as stored. */
export interface ListRecord {
  id: string;
  accountId: string;
  apiKeyId: string;
  name: string;
  state: ListState;
  source: 'json' | 'csv';
  /** The CSV header (uploaded or synthetic); null for JSON uploads. */
  header: string[] | null;
  webhookUrl: string | null;
  counts: ListCounts;
  /** Unique addresses with a final result. */
  processedAddresses: number;
  pauseReason: PauseReason | null;
  message: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /**
   * Set only while the list is running and waits for its re-checks (no worker holds it; every
   * address left has a provisional result): when the first is due. A client sees why it stands still.
   */
  recheckAt?: string;
  /**
   * When its rows and results were deleted, its retention over (the list stays, with its counts);
   * null or absent while they are kept.
   */
  resultsExpiredAt?: string | null;
}

export interface NewList {
  accountId: string;
  apiKeyId: string;
  source: 'json' | 'csv';
  header: string[] | null;
}

/** One uploaded row, ready to store. */
export interface UploadedRow {
  rowNumber: number;
  /** As uploaded (trimmed). */
  email: string;
  /** The normalized identity of the address: duplicates share it. */
  addressKey: string;
  /** The ASCII domain, lower-cased (for grouping by domain). */
  domain: string;
  /** The whole CSV row; null for JSON uploads. */
  fields: string[] | null;
}

/** A unique address of an upload: where it first appears and how many of its rows name it. */
export interface UploadedAddress {
  addressKey: string;
  /** As its first row wrote it. */
  email: string;
  domain: string;
  firstRow: number;
  rowCount: number;
}

/** A unique address still to verify. */
export interface PendingAddress {
  addressKey: string;
  email: string;
  domain: string;
  firstRow: number;
  /** Rows of the list with this address. */
  rowCount: number;
  charged: boolean;
  /** Verifications already made (provisional results that were re-checked). */
  attempts: number;
}

/**
 * Where a walk over the pending addresses stopped: they are walked by domain, then address key,
 * the order they are stored in (so one batch's charges and results touch neighbouring pages).
 */
export interface PendingCursor {
  domain: string;
  addressKey: string;
}

/** One row of the results download. */
export interface ResultRow {
  rowNumber: number;
  email: string;
  fields: string[] | null;
  result: VerificationResult | null;
}

/**
 * Which rows of a list's results to show: with `statuses`, only rows whose address has a final
 * result of one of them; with `search`, only rows whose address (as uploaded) contains it, letters
 * compared without case.
 */
export interface ResultFilter {
  statuses?: readonly Status[] | undefined;
  search?: string | undefined;
}

/** The charge of one batch of a list's addresses against its account's quota and its key's cap. */
export interface AddressCharge extends UsageOwner {
  month: UsageMonth;
  ceiling: Ceiling;
}

/** An account's share of list storage. */
export interface AccountStorage {
  storedRows: number;
  unfinishedLists: number;
}

/** The states of a list that is done: nothing more runs, and it is kept only for its retention. */
export const FINISHED_LIST_STATES = ['completed', 'cancelled', 'failed'] as const;

/** How a worker's attempt to start (or take up again) a list went; see `ListStore.startRun`. */
export type ListStart =
  /** The list is now running and counts toward its account's running lists. */
  | { kind: 'started' }
  /** It was running already and not waiting (a recovered or repeated job): carry on. */
  | { kind: 'running' }
  /** It waits for a re-check due at `at`. */
  | { kind: 'waiting'; at: string }
  /** Its account runs as many lists as it may. */
  | { kind: 'capped' }
  /** Nothing to run: paused, finished, or gone. */
  | { kind: 'idle' };

/** An account's oldest list ready to start, how many lists that account runs now, and when it last started one. */
export interface ListTurn {
  listId: string;
  accountId: string;
  apiKeyId: string;
  running: number;
  lastStartedAt: string | null;
}

/**
 * Whose turn comes first: the account running fewer lists, then the one that started a list
 * longest ago (never is longest): round-robin between accounts. Negative when `x` goes first.
 */
export function compareTurns(
  x: Pick<ListTurn, 'running' | 'lastStartedAt'>,
  y: Pick<ListTurn, 'running' | 'lastStartedAt'>,
): number {
  if (x.running !== y.running) return x.running - y.running;
  return (x.lastStartedAt ?? '').localeCompare(y.lastStartedAt ?? '');
}

/** States in which a list's runner may still charge and save (queued: resumed while it ran). */
export const LIVE_LIST_STATES = ['queued', 'running'] as const;

/** Every list-job query; list webhooks' outbox lives on the same database (and transactions). */
export interface ListStore extends WebhookOutbox {
  /** Starts an upload: the list exists, hidden (`uploading`), until `finishUpload`. */
  beginList(input: NewList, now: Date): Promise<string>;
  /**
   * Stores a batch of rows (their addresses come apart, through `addAddresses`), and marks the
   * upload alive at `now`, so the stale-upload sweep leaves a long upload alone.
   */
  addRows(listId: string, rows: readonly UploadedRow[], now: Date): Promise<void>;
  /**
   * Stores an upload's unique addresses, best given sorted by domain then key (the order they are
   * stored in). With `merge`, an address stored before merges (its rows add up, its first row stays
   * the first); without it the caller knows none was (the upload's addresses came in one gathering),
   * and a store may insert them plainly. The upload's month is kept as the charge month to be, so
   * charging rewrites it in place.
   */
  addAddresses(
    listId: string,
    addresses: readonly UploadedAddress[],
    now: Date,
    merge: boolean,
  ): Promise<void>;
  /**
   * Counts the rows and addresses and makes the list `queued`. The name and webhook are set here:
   * a streamed JSON upload may name them after its rows.
   */
  finishUpload(
    listId: string,
    now: Date,
    details: { name: string; webhookUrl: string | null },
  ): Promise<ListRecord>;
  /** Removes a list and all its data (an abandoned upload, or DELETE). */
  deleteList(listId: string): Promise<void>;
  /** Removes uploads that never finished (their process died), older than `before`. */
  deleteStaleUploads(before: Date): Promise<number>;
  /**
   * What an account keeps: the rows of its lists (an upload counts once it is whole) and its
   * unfinished lists (uploading, queued, running, paused).
   */
  accountStorage(accountId: string): Promise<AccountStorage>;

  /** The list, when it exists and (with `accountId`) belongs to that account. */
  getList(listId: string, accountId?: string): Promise<ListRecord | null>;
  /** An account's lists, newest first, `limit` at most, after the cursor (the last seen list). */
  listLists(
    accountId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<ListRecord[]>;
  /**
   * Moves a list from one of `from` to `to`, atomically (a conditional UPDATE); false when the
   * list was not in one of `from`. `patch` sets the reason and message (null clears them).
   */
  transition(
    listId: string,
    from: readonly ListState[],
    to: ListState,
    now: Date,
    patch?: { pauseReason?: PauseReason | null; message?: string | null },
    /** Only a list of this account. */
    accountId?: string,
  ): Promise<boolean>;
  /** Ids of lists a runner should be working on (`queued` or `running`). */
  runnableListIds(): Promise<string[]>;
  /**
   * Starts a queued list, or takes up a running one whose re-check wait is over, unless its
   * account already runs `maxRunning` lists (running, not waiting). One conditional UPDATE.
   */
  startRun(listId: string, now: Date, maxRunning: number): Promise<ListStart>;
  /** A running list stops counting as running until `at` (it waits for a re-check); false if not running. */
  waitUntil(listId: string, at: Date): Promise<boolean>;
  /**
   * Per account, its oldest list ready to start at `now` (queued, or a re-check wait over), with the
   * account's running count; accounts running fewer lists first, then the longest waiting.
   */
  listTurns(now: Date): Promise<ListTurn[]>;
  /** Addresses charged, without a result and not waiting for a re-check: the work in flight. */
  inFlightCharges(listId: string): Promise<string[]>;
  /** Lists paused because their quota ran out, with the key charged. */
  quotaPausedLists(): Promise<Array<{ id: string; apiKeyId: string }>>;

  /**
   * Pending addresses not waiting for a re-check, by domain then key, after `cursor`; with
   * `domain`, only that domain's.
   */
  pendingAddresses(
    listId: string,
    cursor: PendingCursor | null,
    limit: number,
    domain?: string,
  ): Promise<PendingAddress[]>;
  /** The domains that have pending addresses not waiting for a re-check, in order, after `after`. */
  pendingDomains(listId: string, after: string | null, limit: number): Promise<string[]>;
  /** Provisional results whose re-check is due. */
  dueRechecks(listId: string, now: Date, limit: number): Promise<PendingAddress[]>;
  /** When the next re-check is due; null when none waits. */
  nextRecheckAt(listId: string): Promise<string | null>;
  /**
   * Charges the key's quota for those of `addressKeys` not yet charged and marks them charged, in
   * one transaction: an address is never charged twice, whatever crashes or runs concurrently.
   * When the quota cannot cover them all, the first ones (in the given order) are charged.
   * Returns the keys now charged by this call and the month's usage after it. Charges nothing,
   * with `stopped: true`, once the list is no longer queued or running (paused, cancelled): in the
   * same transaction, so nothing is charged after a pause or cancel was acknowledged.
   */
  chargeAddresses(
    listId: string,
    addressKeys: readonly string[],
    charge: AddressCharge,
  ): Promise<{ charged: string[]; used: Used; stopped?: true }>;
  /**
   * Gives back the charge of addresses (a result our own DNS failure spoiled, work in flight at a
   * cancel) to the charge's account and key, each unit to the month it was charged in: a re-check weeks later
   * must not lower this month's usage for last month's charge. `charge.month` stands in for
   * addresses charged before the month was recorded.
   */
  unchargeAddresses(listId: string, addressKeys: readonly string[], charge: AddressCharge): Promise<void>;
  /**
   * Final results: marks the addresses done (once: a second save of one is ignored) and counts them;
   * ignored once the list is no longer queued or running (a pause or cancel freezes its counts).
   */
  saveResults(
    listId: string,
    results: ReadonlyArray<{ addressKey: string; result: VerificationResult }>,
  ): Promise<void>;
  /** Provisional results, to be checked again at `retryAt`; ignored, as saves, once the list stopped. */
  deferAddresses(
    listId: string,
    items: ReadonlyArray<{ addressKey: string; result: VerificationResult; retryAt: Date }>,
  ): Promise<void>;
  /** Recomputes a list's counters from its addresses (after a crash between a save and its count). */
  recount(listId: string): Promise<void>;
  /** Rows with their results, in upload order, after `afterRow`; only `statuses` when given. */
  resultRows(
    listId: string,
    afterRow: number,
    limit: number,
    statuses?: readonly Status[],
  ): Promise<ResultRow[]>;
  /**
   * One page of the rows `filter` keeps, in upload order: `limit` rows after the first `offset` of
   * them (the dashboard's results table, which pages back as well as forward).
   */
  resultRowsAt(listId: string, offset: number, limit: number, filter: ResultFilter): Promise<ResultRow[]>;
  /** How many rows `filter` keeps. */
  countResultRows(listId: string, filter: ResultFilter): Promise<number>;
  /**
   * Other addresses of the list at `domain` (ASCII, lower-case), `limit` at most, in upload order:
   * their local parts, and `confirmed` when the list's result found the mailbox (status VALID).
   */
  peersAtDomain(listId: string, domain: string, limit: number): Promise<ListPeer[]>;
}

/** An address of a list seen beside another at the same domain (catch-all confidence reads them). */
export interface ListPeer {
  localPart: string;
  confirmed: boolean;
}

/**
 * Where a list's webhook may point, asked when the list is made: a URL at a loopback, private or
 * reserved address is refused then, rather than at each delivery after the list ran. Deliveries
 * check again every time (DNS may answer differently by then): this is the early answer, the
 * sender's check is the guard.
 */
export interface WebhookTargetCheck {
  /**
   * Null when deliveries may go to `url` (a public address, private ones allowed, or a name that
   * does not resolve now: it may later); otherwise what the host is, e.g. `loopback (localhost)`.
   */
  refusal(url: string): Promise<string | null>;
}
