/**
 * What the API does with list jobs: store an upload as it streams in, move a list
 * between states on its owner's request, and read its results back in upload order. No HTTP here;
 * the routes call it. The work itself is the runner's, reached through the queue.
 */

import { type AuditTrail, recordChange } from '../audit/audit-trail.ts';
import type { Initiator } from '../audit/ports.ts';
import type { JobQueue } from '../jobs/ports.ts';
import { monthOf } from '../usage/months.ts';
import { addressKeyOf, domainOfKey } from '../usage/verification-service.ts';
import { normalizeAddress } from '../verification/checks/normalize.ts';
import type { Status } from '../verification/report.ts';
import { recordListEnd } from '../webhooks/events.ts';
import { type ListStorageLimits, rowAllowance, storedRowsError } from './list-limits.ts';
import {
  type ListRecord,
  type ListStore,
  listJob,
  type ResultFilter,
  type ResultRow,
  type UploadedAddress,
  type UploadedRow,
  type WebhookTargetCheck,
} from './ports.ts';
import { UniqueAddresses } from './upload/unique-addresses.ts';
import { UploadError } from './upload/upload-error.ts';
import { WriteAhead } from './upload/write-ahead.ts';

/** One uploaded row, as the upload parsers yield it. */
export interface IncomingRow {
  email: string;
  /** The whole CSV row; absent for JSON uploads. */
  fields?: string[];
}

/** A new list's description (its rows come separately, as a stream). */
export interface ListUpload {
  accountId: string;
  apiKeyId: string;
  source: 'json' | 'csv';
  header: string[] | null;
}

/** What a list is called and where it reports, known once its rows are read (JSON may put them last). */
export interface ListDetails {
  name: string;
  webhookUrl: string | null;
}

/** An owner's request on a list that its state does not allow (409), or no such list (404). */
export type ListActionOutcome =
  | { kind: 'ok'; list: ListRecord }
  | { kind: 'not_found' }
  | { kind: 'conflict'; state: string };

export interface ListServiceDeps {
  lists: ListStore;
  queue: Pick<JobQueue, 'enqueue'>;
  /** Where a webhook may point: asked for every list made with one. */
  webhookTargets: WebhookTargetCheck;
  now?: () => Date;
  /** Told when a queue message could not be sent (the list still runs: workers sweep the store). */
  onEnqueueError?: (listId: string, error: unknown) => void;
  /** Records the lists someone (`by`) deletes. */
  audit?: AuditTrail;
  /**
   * Upload writes in flight while the next batch is read (default 1). A store on another process
   * takes 2: PostgreSQL inserts two batches on two connections while this process parses the next
   * (its upload of 100,000 rows 3.0-3.75 s against 3.75-5.1 s with none, and one was no faster).
   * An embedded SQLite store keeps 1: its writes run on the event loop, and with 2 it could commit
   * two batches of wide rows in one turn (/healthz at a median 308 ms during such an upload,
   * 52-72 ms with 1: tests/security/upload-wide-csv.test.ts).
   */
  uploadWritesInFlight?: number;
  /** Unique addresses an upload gathers in memory before handing them to the store (tests). */
  uniqueAddressCapacity?: number;
}

/**
 * Rows stored per write while an upload streams in: at most this many, and a write as soon as the
 * rows' cells reach the byte bound (wide rows must not pile up a thousand at a time in memory).
 * SQLite's writes are synchronous: a 4 MB batch of wide rows held the event loop for a few hundred
 * milliseconds on a slow disk (a CI run measured /healthz at 294 ms meanwhile); 1 MB bounds that
 * stall. Ordinary rows reach the row bound long before the byte bound.
 */
const UPLOAD_BATCH = 1000;
const UPLOAD_BATCH_BYTES = 1024 * 1024;
/** Addresses stored per write at the end of an upload (a few milliseconds of SQLite each). */
const ADDRESS_WRITE = 2000;
/** Rows read per store query while results stream out. */
const RESULT_PAGE = 1000;

/** List jobs for API callers. */
export class ListService {
  readonly #deps: ListServiceDeps;
  readonly #now: () => Date;

  constructor(deps: ListServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * The rows another list of the account may hold under `limits`: call it before reading an upload.
   * @throws ListLimitError when the account has no room for another list.
   */
  async room(accountId: string, limits: ListStorageLimits): Promise<number> {
    return rowAllowance(await this.#deps.lists.accountStorage(accountId), limits);
  }

  /**
   * Refuses a webhook URL at a loopback, private or reserved address (or a name that resolves only
   * to such), unless private receivers are allowed. Call it before reading an upload when the URL
   * is known then, so nothing is read or stored for a refused list; `create` checks the final one.
   * @throws UploadError (`validation_failed`, field `webhook_url`)
   */
  async checkWebhookTarget(url: string | null): Promise<void> {
    if (url === null) return;
    const refusal = await this.#deps.webhookTargets.refusal(url);
    if (refusal !== null)
      throw new UploadError(
        'validation_failed',
        `Must point at a public address, not ${refusal}`,
        'webhook_url',
      );
  }

  /**
   * Stores a list from a stream of rows, batch by batch (memory stays bounded whatever the size),
   * then queues it. `details` is called once the rows are read, and its webhook checked; if reading
   * them, `details` or the check fails, nothing is left behind and the error is rethrown. With `limits`, a row past
   * `limits.rows` throws ListLimitError (the account's stored rows). `onBegin` learns the new
   * list's id before any row is read (a caller that must find the list again after a crash).
   */
  async create(
    upload: ListUpload,
    rows: AsyncIterable<IncomingRow>,
    details: () => ListDetails,
    limits?: { rows: number; maxStoredRows: number },
    onBegin?: (listId: string) => Promise<void>,
  ): Promise<ListRecord> {
    const { lists } = this.#deps;
    const listId = await lists.beginList(upload, this.#now());
    const writes = new WriteAhead(this.#deps.uploadWritesInFlight ?? 1);
    const storeRows = (rows: UploadedRow[]) => writes.add(() => lists.addRows(listId, rows, this.#now()));
    try {
      await onBegin?.(listId);
      let batch: UploadedRow[] = [];
      let batchBytes = 0;
      let rowNumber = 0;
      const unique = new UniqueAddresses(this.#deps.uniqueAddressCapacity);
      let handedOver = false;
      for await (const row of rows) {
        rowNumber += 1;
        if (limits !== undefined && rowNumber > limits.rows) throw storedRowsError(limits.maxStoredRows);
        const email = row.email.trim();
        const normalized = normalizeAddress(email);
        const addressKey = addressKeyOf(normalized);
        const uploaded: UploadedRow = {
          rowNumber,
          email,
          addressKey,
          domain: domainOfKey(addressKey),
          fields: row.fields ?? null,
        };
        batch.push(uploaded);
        batchBytes += email.length + fieldsLength(row.fields);
        if (batch.length >= UPLOAD_BATCH || batchBytes >= UPLOAD_BATCH_BYTES) {
          await storeRows(batch);
          batch = [];
          batchBytes = 0;
        }
        const full = unique.add(uploaded);
        if (full !== null) {
          handedOver = true;
          await this.#storeAddresses(writes, listId, full, true);
        }
      }
      if (batch.length > 0) await storeRows(batch);
      // Gathered in one piece, the addresses are new to the list: nothing to merge. Once a gathering
      // was handed over, every one merges (two in flight at once could meet the same address).
      await this.#storeAddresses(writes, listId, unique.take(), handedOver);
      await writes.drain();
      const finalDetails = details();
      await this.checkWebhookTarget(finalDetails.webhookUrl);
      const list = await lists.finishUpload(listId, this.#now(), finalDetails);
      await this.#enqueue(listId);
      return list;
    } catch (error) {
      // A write still in flight would land after the delete and leave its rows behind.
      await writes.settle();
      await lists.deleteList(listId).catch(() => {});
      throw error;
    }
  }

  /** Stores an upload's addresses (sorted) a slice at a time: each slice is one short write. */
  async #storeAddresses(
    writes: WriteAhead,
    listId: string,
    addresses: readonly UploadedAddress[],
    merge: boolean,
  ): Promise<void> {
    for (let start = 0; start < addresses.length; start += ADDRESS_WRITE) {
      const slice = addresses.slice(start, start + ADDRESS_WRITE);
      await writes.add(() => this.#deps.lists.addAddresses(listId, slice, this.#now(), merge));
    }
  }

  /** The caller's list, or null. */
  get(accountId: string, listId: string): Promise<ListRecord | null> {
    return this.#deps.lists.getList(listId, accountId);
  }

  /** The caller's lists, newest first. */
  page(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ListRecord[]> {
    return this.#deps.lists.listLists(accountId, limit, after);
  }

  /** Stops a queued or running list after the verifications in flight. */
  pause(accountId: string, listId: string): Promise<ListActionOutcome> {
    return this.#act(accountId, listId, ['queued', 'running'], 'paused', {
      pauseReason: 'user',
      message: null,
    });
  }

  /** Queues a paused list again (whatever paused it: a list paused for quota pauses again if none came back). */
  async resume(accountId: string, listId: string): Promise<ListActionOutcome> {
    const outcome = await this.#act(accountId, listId, ['paused'], 'queued', {
      pauseReason: null,
      message: null,
    });
    if (outcome.kind === 'ok') await this.#enqueue(listId);
    return outcome;
  }

  /**
   * Ends a list that has not finished; its results so far stay downloadable. Addresses charged but
   * not yet verified when the cancel lands are given back before the answer: from the moment the
   * list is cancelled the store charges and saves nothing more for it, so what the owner sees then
   * (processed, usage) stays as it is, and usage counts only addresses with a result.
   */
  async cancel(accountId: string, listId: string): Promise<ListActionOutcome> {
    const outcome = await this.#act(accountId, listId, ['queued', 'running', 'paused'], 'cancelled', {
      pauseReason: null,
      message: 'Cancelled by its owner.',
    });
    if (outcome.kind === 'ok') {
      const { lists } = this.#deps;
      await recordListEnd(lists, listId, 'cancelled', this.#now());
      const inFlight = await lists.inFlightCharges(listId);
      // Each unit goes back to the month it was charged in (a list paused since an earlier month).
      const charge = {
        accountId: outcome.list.accountId,
        keyId: outcome.list.apiKeyId,
        month: monthOf(this.#now()),
        ceiling: { account: 0, key: null },
      };
      if (inFlight.length > 0) await lists.unchargeAddresses(listId, inFlight, charge);
    }
    return outcome;
  }

  /** Removes a list and all its data, whatever its state (a running one stops). */
  async remove(accountId: string, listId: string, by?: Initiator): Promise<boolean> {
    const list = await this.#deps.lists.getList(listId, accountId);
    if (list === null) return false;
    await this.#deps.lists.deleteList(listId);
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'list.deleted',
      targetId: listId,
      details: { name: list.name, state: list.state, rows: list.counts.total },
    });
    return true;
  }

  /** Every row with its result (null until verified), in upload order, page by page. */
  async *results(listId: string, statuses?: readonly Status[]): AsyncGenerator<ResultRow> {
    let after = 0;
    for (;;) {
      const page = await this.#deps.lists.resultRows(listId, after, RESULT_PAGE, statuses);
      yield* page;
      if (page.length < RESULT_PAGE) return;
      after = page.at(-1)!.rowNumber;
    }
  }

  /**
   * One page of a list's rows for people to read: `limit` rows after the first `offset` that
   * `filter` keeps, and how many it keeps in all. Without a search the total is the list's own
   * counters (every row, or the rows per status), so paging a large list counts nothing.
   */
  async resultPage(
    list: ListRecord,
    offset: number,
    limit: number,
    filter: ResultFilter,
  ): Promise<{ rows: ResultRow[]; total: number }> {
    const { lists } = this.#deps;
    const searching = filter.search !== undefined && filter.search !== '';
    const [rows, total] = await Promise.all([
      lists.resultRowsAt(list.id, offset, limit, filter),
      searching
        ? lists.countResultRows(list.id, filter)
        : filter.statuses === undefined
          ? list.counts.total
          : filter.statuses.reduce((sum, status) => sum + list.counts.byStatus[status], 0),
    ]);
    return { rows, total };
  }

  async #act(
    accountId: string,
    listId: string,
    from: ListRecord['state'][],
    to: ListRecord['state'],
    patch: { pauseReason: ListRecord['pauseReason']; message: string | null },
  ): Promise<ListActionOutcome> {
    const { lists } = this.#deps;
    if (!(await lists.transition(listId, from, to, this.#now(), patch, accountId))) {
      const list = await lists.getList(listId, accountId);
      return list === null ? { kind: 'not_found' } : { kind: 'conflict', state: list.state };
    }
    const list = await lists.getList(listId, accountId);
    return list === null ? { kind: 'not_found' } : { kind: 'ok', list };
  }

  async #enqueue(listId: string): Promise<void> {
    try {
      await this.#deps.queue.enqueue(listJob(listId));
    } catch (error) {
      this.#deps.onEnqueueError?.(listId, error);
    }
  }
}

/** Characters in a row's cells: a cheap measure of the memory a pending row holds. */
function fieldsLength(fields: readonly string[] | null | undefined): number {
  let length = 0;
  for (const cell of fields ?? []) length += cell.length;
  return length;
}
