/**
 * Runs one list job from the store: walks its pending addresses by domain (so one
 * domain's addresses share SMTP sessions), charges the key's quota per address before verifying
 * it, saves results as they come, re-checks greylisted addresses after a delay, and completes the
 * list. Everything it knows is in the store, so a run can stop anywhere (pause, cancel, kill -9)
 * and a later run carries on: no address is charged twice or gets two results.
 */
import type { Plan } from '../accounts/plans.ts';
import type { ApiKeyRecord } from '../accounts/ports.ts';
import type { Store } from '../store.ts';
import type { DailyUsageRecorder } from '../usage/daily-usage.ts';
import { meterFor, verificationCeiling } from '../usage/meter.ts';
import { monthOf, nextMonthStart } from '../usage/months.ts';
import type { Ceiling } from '../usage/ports.ts';
import { isRefundable } from '../verification/refund.ts';
import type { VerificationResult } from '../verification/report.ts';
import { listEventDelivery, recordListEnd } from '../webhooks/events.ts';
import type { AddressCharge, ListRecord, ListStore, PendingAddress, PendingCursor } from './ports.ts';
import { ResultBuffer } from './result-buffer.ts';

export interface ListRunnerDeps {
  store: Pick<Store, 'findApiKeyById' | 'findAccount'> & { lists: ListStore };
  plans: Readonly<Record<string, Plan>>;
  /** Verifies one address without charging; `fresh` skips the result cache. */
  verify: (
    email: string,
    options: { fresh: boolean; accountId?: string; listId?: string },
  ) => Promise<VerificationResult>;
  /** Wait before a greylisted (or timed-out, unreachable, DNS-failed) address is checked again, ms. */
  recheckDelayMs: number;
  /** Verifications per address at most, the first included (default 3). */
  maxAttempts?: number;
  /** Domains of one list worked on at once (default 4). */
  lanes?: number;
  /** Addresses verified at once per lane (default 32). */
  concurrency?: number;
  /**
   * Addresses read (and charged) per step (default 500): a step costs a few statements whatever
   * its size (the list's state and key, the pending addresses, the charge's transaction), and on
   * PostgreSQL each is a round trip; 1,000 measured no faster than 500, 200 was 7 % slower (with
   * results in groups of 250 then, `ResultBuffer`).
   */
  batchSize?: number;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Counts the daily figures (verifications by status, list rows). */
  daily?: Pick<DailyUsageRecorder, 'record'>;
}

/** How a run ended: `waitUntil` when only re-checks remain, the first due then (the slot is free meanwhile). */
export interface ListRunOutcome {
  waitUntil?: Date;
}

/** How often a pass looks whether its list was paused or cancelled meanwhile, ms. */
const STOP_CHECK_MS = 200;

/** Whether a pause or cancel was seen while this pass worked (read through a call: it changes under awaits). */
function stoppedMeanwhile(state: PassState): boolean {
  return state.end === 'stopped';
}

/** How a pass over addresses ended. */
type PassEnd = 'done' | 'stopped' | 'quota';

/** What the lanes of one pass share: how it ends, and the first bug met. */
interface PassState {
  end: PassEnd;
  failure: unknown;
}

/**
 * Results that say nothing about the mailbox, only about the moment: the address is checked again
 * later, before the list completes (a list cleaner acts on the final answer).
 */
const RECHECKED_REASONS = new Set(['greylisted', 'dns_error', 'connect_failed', 'timeout']);

/** Runs list jobs; `run` is the queue's handler. */
export class ListRunner {
  readonly #deps: ListRunnerDeps;
  readonly #now: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(deps: ListRunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Works on the list until it is completed, paused, cancelled or gone, or until only re-checks
   * that are not yet due remain: then the list is marked waiting in the store and the run returns
   * when to come back, so a list waiting minutes holds no worker slot.
   */
  async run(listId: string): Promise<ListRunOutcome> {
    const { lists } = this.#deps.store;
    const list = await lists.getList(listId);
    if (list === null) return {};
    if (list.state === 'queued') {
      const started = await lists.transition(listId, ['queued'], 'running', this.#now(), {
        pauseReason: null,
        message: null,
      });
      if (!started) return {};
    } else if (list.state !== 'running') {
      return {};
    }
    const key = await this.#liveKey(list);
    if (key === null) return {};
    const account = await this.#deps.store.findAccount(list.accountId);
    if (account === null) return {};
    const ceiling = verificationCeiling(meterFor(this.#deps.plans, account, key));
    // A crash between saving results and counting them leaves the counters short: heal them.
    await lists.recount(listId);

    let end = await this.#pass(list, ceiling, false);
    // Paused and resumed while this run was finishing its verifications in flight: carry on.
    while (end === 'stopped' && (await this.#stillRunning(listId))) {
      end = await this.#pass(list, ceiling, false);
    }
    while (end === 'done') {
      const due = await lists.dueRechecks(listId, this.#now(), this.#batchSize);
      if (due.length > 0) {
        end = await this.#pass(list, ceiling, true, due);
        continue;
      }
      const next = await lists.nextRecheckAt(listId);
      if (next === null) break;
      if (!(await this.#stillRunning(listId))) return {};
      const wait = Date.parse(next) - this.#now().getTime();
      // Due within a moment (clocks, rounding): look again rather than give the slot away.
      if (wait <= 50) {
        await this.#sleep(Math.max(10, wait));
        continue;
      }
      const waitUntil = new Date(next);
      // Not running any more (paused, cancelled): nothing to come back for.
      return (await lists.waitUntil(listId, waitUntil)) ? { waitUntil } : {};
    }
    if (end === 'done') await this.#complete(listId);
    return {};
  }

  get #batchSize(): number {
    return this.#deps.batchSize ?? 500;
  }

  /**
   * One pass over the pending addresses (or, given `rechecks`, over just those, already charged).
   * Domains are spread over `lanes` lanes, each working through one domain at a time with its own
   * window of verifications in flight: a domain's addresses share SMTP sessions, and a big or slow
   * domain holds one lane, never the whole list.
   */
  async #pass(
    list: ListRecord,
    ceiling: Ceiling,
    fresh: boolean,
    rechecks?: PendingAddress[],
  ): Promise<PassEnd> {
    const { lists } = this.#deps.store;
    const buffer = new ResultBuffer(lists, list.id);
    const state: PassState = { end: 'done', failure: undefined };
    // A pause or cancel stops launching verifications within a moment, not at the next batch: the
    // store refuses this pass's charges and saves from then on anyway.
    const watcher = setInterval(() => {
      lists
        .getList(list.id)
        .then((now) => {
          if (state.end === 'done' && (now === null || (now.state !== 'running' && now.state !== 'queued'))) {
            state.end = 'stopped';
          }
        })
        .catch(() => {});
    }, STOP_CHECK_MS);
    watcher.unref();
    try {
      return await this.#passWork(list, ceiling, fresh, buffer, state, rechecks);
    } finally {
      clearInterval(watcher);
    }
  }

  async #passWork(
    list: ListRecord,
    ceiling: Ceiling,
    fresh: boolean,
    buffer: ResultBuffer,
    state: PassState,
    rechecks: PendingAddress[] | undefined,
  ): Promise<PassEnd> {
    const { lists } = this.#deps.store;
    if (rechecks !== undefined) {
      let given = false;
      await this.#drain(list, ceiling, fresh, buffer, state, async () => {
        if (given) return [];
        given = true;
        return rechecks;
      });
    } else {
      const domains = this.#pendingDomains(list.id);
      const lane = async (): Promise<void> => {
        while (state.end === 'done' && state.failure === undefined) {
          const next = await domains.next();
          if (next.done) return;
          let cursor: PendingCursor | null = null;
          await this.#drain(list, ceiling, fresh, buffer, state, async () => {
            const batch = await lists.pendingAddresses(list.id, cursor, this.#batchSize, next.value);
            const last = batch.at(-1);
            if (last !== undefined) cursor = { domain: last.domain, addressKey: last.addressKey };
            return batch;
          });
        }
      };
      await Promise.all(Array.from({ length: this.#deps.lanes ?? 4 }, lane));
    }
    await buffer.flush();
    // A bug (not an expected failure: those are results) fails this run; the queue retries it.
    if (state.failure !== undefined) throw state.failure;
    if (state.end === 'quota') await this.#pauseForQuota(list.id);
    return state.end;
  }

  /** The domains with pending addresses, page by page; lanes share it (next() calls queue up). */
  async *#pendingDomains(listId: string): AsyncGenerator<string> {
    let after: string | null = null;
    for (;;) {
      const page = await this.#deps.store.lists.pendingDomains(listId, after, 100);
      yield* page;
      if (page.length < 100) return;
      after = page.at(-1)!;
    }
  }

  /**
   * Charges and verifies the batches `nextBatch` gives until it gives none, or the pass must end
   * (stopped, quota, failure), with at most `concurrency` verifications in flight.
   */
  async #drain(
    list: ListRecord,
    ceiling: Ceiling,
    fresh: boolean,
    buffer: ResultBuffer,
    state: PassState,
    nextBatch: () => Promise<PendingAddress[]>,
  ): Promise<void> {
    const { lists } = this.#deps.store;
    const inFlight = new Set<Promise<void>>();
    const concurrency = this.#deps.concurrency ?? 32;
    while (state.end === 'done' && state.failure === undefined) {
      if (!(await this.#stillRunning(list.id))) {
        if (state.end === 'done') state.end = 'stopped';
        break;
      }
      const batch = await nextBatch();
      if (batch.length === 0) break;
      const charge: AddressCharge = {
        accountId: list.accountId,
        keyId: list.apiKeyId,
        month: monthOf(this.#now()),
        ceiling,
      };
      const uncharged = batch.filter((address) => !address.charged).map((address) => address.addressKey);
      const { charged, stopped } = await lists.chargeAddresses(list.id, uncharged, charge);
      if (stopped === true) {
        // Paused or cancelled since the check above: the store charged nothing.
        if (state.end === 'done') state.end = 'stopped';
        break;
      }
      const chargedNow = new Set(charged);
      const payable = batch.filter((address) => address.charged || chargedNow.has(address.addressKey));
      for (const address of payable) {
        while (inFlight.size >= concurrency) await Promise.race(inFlight);
        // Stopped meanwhile: the rest stays pending (charged, so a resume does not charge it again).
        if (stoppedMeanwhile(state)) break;
        const work = this.#verify(
          address,
          { fresh, accountId: list.accountId, listId: list.id },
          charge,
          buffer,
          state,
        )
          .catch((error: unknown) => {
            state.failure ??= error;
          })
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      }
      if (payable.length < batch.length) {
        if (state.end === 'done') state.end = 'quota';
        break;
      }
    }
    await Promise.all(inFlight);
  }

  async #verify(
    address: PendingAddress,
    verifyOptions: { fresh: boolean; accountId: string; listId: string },
    charge: AddressCharge,
    buffer: ResultBuffer,
    state: PassState,
  ): Promise<void> {
    const result = await this.#deps.verify(address.email, verifyOptions);
    const attempts = address.attempts + 1;
    if (RECHECKED_REASONS.has(result.reason) && attempts < (this.#deps.maxAttempts ?? 3)) {
      const retryAt = new Date(this.#now().getTime() + this.#deps.recheckDelayMs);
      await buffer.defer(address.addressKey, result, retryAt);
      return;
    }
    // A result our own DNS failure spoiled is not charged.
    // Not once the list stopped: its result is not saved, and a usage that moves after a pause or
    // cancel was acknowledged would be a lie (a cancel gives back in-flight charges itself).
    if (isRefundable(result) && state.end !== 'stopped') {
      await this.#deps.store.lists.unchargeAddresses(buffer.listId, [address.addressKey], charge);
    } else if (state.end !== 'stopped') {
      const now = this.#now();
      this.#deps.daily?.record(charge, result.status, 1, now);
      this.#deps.daily?.record(charge, 'list_rows', address.rowCount, now);
    }
    await buffer.save(address.addressKey, result);
  }

  async #stillRunning(listId: string): Promise<boolean> {
    const list = await this.#deps.store.lists.getList(listId);
    if (list === null) return false;
    // A key revoked while the list runs stops it at the next step, as the API refuses it at once.
    if ((await this.#liveKey(list)) === null) return false;
    // A resume while this run was still finishing puts the list back to queued: keep going.
    if (list.state === 'queued') {
      return this.#deps.store.lists.transition(listId, ['queued'], 'running', this.#now());
    }
    return list.state === 'running';
  }

  /** The list's key; when it is gone or revoked, the list is failed and null comes back. */
  async #liveKey(list: ListRecord): Promise<ApiKeyRecord | null> {
    const key = await this.#deps.store.findApiKeyById(list.apiKeyId);
    if (key !== null && key.revokedAt === null) return key;
    const { lists } = this.#deps.store;
    const now = this.#now();
    const failed = await lists.transition(list.id, ['queued', 'running'], 'failed', now, {
      pauseReason: null,
      message: 'The API key that created this list was revoked; the list stopped.',
    });
    if (failed) await recordListEnd(lists, list.id, 'failed', now);
    return null;
  }

  async #pauseForQuota(listId: string): Promise<void> {
    const now = this.#now();
    const reset = nextMonthStart(now).toISOString();
    await this.#deps.store.lists.transition(listId, ['running', 'queued'], 'paused', now, {
      pauseReason: 'quota',
      message: `The monthly verification quota is used up. The list resumes by itself when quota is available again (the quota resets at ${reset}).`,
    });
  }

  async #complete(listId: string): Promise<void> {
    const { lists } = this.#deps.store;
    await lists.recount(listId);
    const list = await lists.getList(listId);
    if (list === null || list.state !== 'running') return;
    const now = this.#now();
    // The event is recorded before the state changes: a crash in between re-runs the list, which
    // completes again and records the same event id (ignored), so the webhook is never lost.
    const delivery = list.webhookUrl === null ? null : listEventDelivery(list, 'completed', now);
    if (delivery !== null) await lists.addWebhookDelivery(delivery, now);
    await lists.transition(listId, ['running'], 'completed', now, { pauseReason: null, message: null });
  }
}
