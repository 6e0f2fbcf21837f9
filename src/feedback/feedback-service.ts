/**
 * Sender feedback: records an account's reported outcomes, bounded per account, and
 * applies them to that account's verdicts. Feedback is free (it charges no verification), but
 * every account may store at most its plan's events (and never more than the server's ceiling),
 * so one tenant cannot fill the disk, and it is paced per account (requests a second), so one
 * tenant's bulk writes cannot hold the store for everyone. Checking a large request gives the event
 * loop back every few hundred events.
 */
import type { RateDecision, RateLimiter } from '../usage/ports.ts';
import type { VerificationResult } from '../verification/report.ts';
import { bouncedResult, isBounced, mayBeBounced } from './bounced.ts';
import {
  checkEvent,
  type EventProblem,
  feedbackAddressOf,
  isProblem,
  type SubmittedEvent,
} from './feedback-address.ts';
import type { DomainFeedbackStats, FeedbackRecord, FeedbackStore } from './ports.ts';

/** Most events one request may carry (the bulk form), and most problems reported back. */
export const MAX_FEEDBACK_EVENTS_PER_REQUEST = 10_000;
export const MAX_REPORTED_PROBLEMS = 100;

/** The server's ceiling on events stored per account by default (MAILVET_FEEDBACK_MAX_EVENTS). */
export const DEFAULT_MAX_STORED_EVENTS = 1_000_000;

/** Events checked between two turns of the event loop. */
const CHECK_SLICE = 500;

export interface FeedbackServiceDeps {
  store: FeedbackStore;
  /** The server's ceiling: no account stores more events, whatever its plan. */
  maxStoredEvents: number;
  /** The account's own figure (its plan's `maxFeedbackEvents`); the ceiling alone without it. */
  planEvents?: (accountId: string) => Promise<number>;
  /** Paces requests per account, with its rate per second; unpaced without it. */
  pace?: { rateLimiter: RateLimiter; requestsPerSecond: number };
  now?: () => Date;
  /** How long an account's having feedback or none is believed (default FEEDBACK_PRESENCE_TTL_MS). */
  presenceTtlMs?: number;
  /** Milliseconds from any fixed origin, for that interval (default performance.now). */
  monotonicMs?: () => number;
}

/** A refused event: its position in the request and what is wrong. */
export interface IndexedProblem extends EventProblem {
  index: number;
}

export type SubmitOutcome =
  | { kind: 'recorded'; recorded: number; duplicates: number }
  /** Some events are not valid: nothing was stored. At most MAX_REPORTED_PROBLEMS, in order. */
  | { kind: 'invalid'; problems: IndexedProblem[] }
  /** They would take the account past its cap: nothing was stored. */
  | { kind: 'full'; stored: number; maxEvents: number }
  /** The account sent feedback faster than its pace: nothing was read. */
  | { kind: 'rate_limited'; decision: RateDecision };

/** What an import of a platform's hard bounces did. */
export interface ImportOutcome {
  recorded: number;
  duplicates: number;
  /** Members skipped: an address or a change time that is not valid. */
  skipped: number;
  /** True when the account's cap stopped the import before its end. */
  full: boolean;
}

/** Hard bounces stored per import call: one transaction each, so a long import never holds the account's row long. */
const IMPORT_CHUNK = 1_000;

/**
 * How long an account's having feedback or none is believed before it is asked again, ms. Most
 * accounts never send feedback, and asking for an address's feedback on every verification was a
 * store lookup per request for nothing. Feedback this process records is seen at once (the belief
 * is dropped); feedback another process records is seen within this time. A bounce is reported
 * minutes to days after a send: a second is nothing beside that.
 */
export const FEEDBACK_PRESENCE_TTL_MS = 1000;
/** Accounts whose presence is remembered, at most (the oldest are forgotten first). */
const PRESENCE_ENTRIES = 10_000;

/** Records feedback and applies it to verdicts. */
export class FeedbackService {
  readonly #deps: FeedbackServiceDeps;
  readonly #now: () => Date;
  /** Per account: whether it has any feedback, and when that was last asked (performance.now()). */
  readonly #presence = new Map<string, { has: boolean; at: number }>();
  /**
   * Per account: the lookup of its presence under way. Verifications that find the belief expired
   * together (a list job has a hundred in flight) wait for that one lookup instead of each asking.
   */
  readonly #asking = new Map<string, Promise<boolean>>();

  constructor(deps: FeedbackServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * Checks and stores a request's events, all or nothing. `planEvents`: the account's own figure
   * when the caller already has it (an API request's limits), else it is looked up.
   */
  async submit(
    accountId: string,
    submitted: readonly SubmittedEvent[],
    planEvents?: number,
  ): Promise<SubmitOutcome> {
    const { pace } = this.#deps;
    if (pace !== undefined) {
      const decision = await pace.rateLimiter.take(`feedback:${accountId}`, pace.requestsPerSecond);
      if (!decision.allowed) return { kind: 'rate_limited', decision };
    }
    const now = this.#now();
    const records: FeedbackRecord[] = [];
    const problems: IndexedProblem[] = [];
    for (let index = 0; index < submitted.length; index++) {
      if (index > 0 && index % CHECK_SLICE === 0) await nextTurn();
      const checked = checkEvent(submitted[index]!, now);
      if (!isProblem(checked)) records.push(checked);
      else if (problems.length < MAX_REPORTED_PROBLEMS) problems.push({ index, ...checked });
    }
    if (problems.length > 0) return { kind: 'invalid', problems };
    this.#forgetPresence(accountId);
    return this.#deps.store.record(accountId, records, await this.#maxEvents(accountId, planEvents));
  }

  /** The most events the account may keep: its plan's figure, within the server's ceiling. */
  async #maxEvents(accountId: string, known?: number): Promise<number> {
    const ceiling = this.#deps.maxStoredEvents;
    const own = known ?? (await this.#deps.planEvents?.(accountId));
    return own === undefined ? ceiling : Math.min(own, ceiling);
  }

  /** Records a platform's hard bounces (Mailchimp's `cleaned` members); idempotent. */
  async importHardBounces(
    accountId: string,
    bounces: ReadonlyArray<{ email: string; at: string }>,
  ): Promise<ImportOutcome> {
    const now = this.#now();
    const outcome: ImportOutcome = { recorded: 0, duplicates: 0, skipped: 0, full: false };
    const records: FeedbackRecord[] = [];
    for (const bounce of bounces) {
      // The platform's change time is the bounce's identity: without one that reads, a second
      // import could not tell the same bounce again, so such a member is skipped.
      const record = checkEvent({ email: bounce.email, event: 'hard_bounce', at: bounce.at }, now);
      if (isProblem(record)) outcome.skipped += 1;
      else records.push(record);
    }
    const maxEvents = await this.#maxEvents(accountId);
    this.#forgetPresence(accountId);
    for (let i = 0; i < records.length; i += IMPORT_CHUNK) {
      const stored = await this.#deps.store.record(accountId, records.slice(i, i + IMPORT_CHUNK), maxEvents);
      if (stored.kind === 'full') return { ...outcome, full: true };
      outcome.recorded += stored.recorded;
      outcome.duplicates += stored.duplicates;
    }
    return outcome;
  }

  /** The result as the account's feedback has it: `bounced` when the rule says so, else unchanged. */
  async applyTo(accountId: string, result: VerificationResult): Promise<VerificationResult> {
    if (!mayBeBounced(result)) return result;
    // Most accounts never send feedback: asked first (remembered), before reading the address.
    if (!(await this.#hasFeedback(accountId))) return result;
    const identity = feedbackAddressOf(result.email);
    if (identity === null) return result;
    const feedback = await this.#deps.store.outcomeOf(accountId, identity.address);
    return isBounced(feedback) ? bouncedResult(result) : result;
  }

  /** Whether the account has any feedback, as last asked within FEEDBACK_PRESENCE_TTL_MS. */
  async #hasFeedback(accountId: string): Promise<boolean> {
    const known = this.#presence.get(accountId);
    const now = this.#deps.monotonicMs?.() ?? performance.now();
    const ttl = this.#deps.presenceTtlMs ?? FEEDBACK_PRESENCE_TTL_MS;
    if (known !== undefined && now - known.at < ttl) return known.has;
    const asking = this.#asking.get(accountId);
    if (asking !== undefined) return asking;
    const question = this.#deps.store.hasEvents(accountId);
    this.#asking.set(accountId, question);
    try {
      const has = await question;
      // Feedback recorded while the question was out dropped it: its answer may predate that.
      if (this.#asking.get(accountId) === question) {
        this.#presence.delete(accountId);
        if (this.#presence.size >= PRESENCE_ENTRIES)
          this.#presence.delete(this.#presence.keys().next().value!);
        this.#presence.set(accountId, { has, at: now });
      }
      return has;
    } finally {
      if (this.#asking.get(accountId) === question) this.#asking.delete(accountId);
    }
  }

  /** Feedback was recorded here: the next verification asks again. */
  #forgetPresence(accountId: string): void {
    this.#presence.delete(accountId);
    this.#asking.delete(accountId);
  }

  /** The account's feedback at a domain (catch-all confidence reads its bounce rate). */
  domainStats(accountId: string, domain: string): Promise<DomainFeedbackStats> {
    return this.#deps.store.domainStats(accountId, domain.toLowerCase());
  }
}

/** Gives the event loop a turn: other requests are answered between slices of a large request. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
