/**
 * The API's verification service: deduplicates, charges the monthly quota exactly (atomic
 * conditional updates in the store), answers from the result cache, runs the pipeline, and gives
 * back the units of results our own DNS failure spoiled (`isRefundable`). No HTTP here: routes call it.
 */
import type { FeedbackService } from '../feedback/feedback-service.ts';
import { normalizeAddress } from '../verification/checks/normalize.ts';
import type { Verifier } from '../verification/pipeline.ts';
import { isRefundable } from '../verification/refund.ts';
import type { Reason, VerificationResult } from '../verification/report.ts';
import type { CatchAllAssessor } from './catch-all-context.ts';
import type { DailyUsageRecorder } from './daily-usage.ts';
import { bulkCeiling, keyLimit, type Meter, remainingUnder, verificationCeiling } from './meter.ts';
import { monthBoundsOf, monthOf } from './months.ts';
import type { Ceiling, ResultCache, UsageStore, Used } from './ports.ts';

/** Probe outcomes that say nothing lasting about the address. */
const INCONCLUSIVE_REASONS: ReadonlySet<Reason> = new Set<Reason>([
  'timeout',
  'connect_failed',
  'greylisted',
  'blocked',
  'policy',
  'message_refused',
  'system_error',
  'tls_failed',
  'protocol_error',
]);
const DEFAULT_INCONCLUSIVE_TTL_SECONDS = 300;

/** The authenticated key (or the dashboard's) a request acts for, with its account's figures and its caps. */
export type Caller = Meter;

/** The monthly quota after a request (the `X-Quota-*` headers). */
export interface QuotaState {
  limit: number;
  remaining: number;
  /** ISO-8601 UTC instant of the next month's start. */
  resetAt: string;
  /** Whole seconds until then (`Retry-After` when the quota is used up). */
  resetSeconds: number;
}

export type VerifyOutcome =
  | { kind: 'ok'; result: VerificationResult; quota: QuotaState }
  | { kind: 'quota_exceeded'; quota: QuotaState };

export type BulkOutcome =
  | { kind: 'ok'; results: VerificationResult[]; unprocessed: string[]; quota: QuotaState }
  | { kind: 'quota_exceeded'; quota: QuotaState }
  | { kind: 'bulk_quota_exceeded'; quota: QuotaState };

export interface VerificationServiceDeps {
  verifier: Pick<Verifier, 'verify'>;
  usage: UsageStore;
  cache: ResultCache;
  /** MAILVET_RESULT_TTL; 0 turns the cache off. */
  resultTtlSeconds: number;
  /**
   * MAILVET_INCONCLUSIVE_RESULT_TTL: the most an inconclusive probe result (timeout, refused or
   * failed connection, greylisting, a block, TLS or protocol trouble) is cached. It says more about
   * the moment, or about another tenant's load, than about the address. Default 300.
   */
  inconclusiveTtlSeconds?: number;
  /** Wall-clock time, for the calendar month. */
  now?: () => Date;
  /** Counts the daily figures (verifications by status, bulk requests). */
  daily?: Pick<DailyUsageRecorder, 'record'>;
  /**
   * The account's sender feedback: an address it reported hard-bounced is `bounced` for it alone.
   * Such a result is charged like any other (it was verified, and answered).
   */
  feedback?: Pick<FeedbackService, 'applyTo'>;
  /**
   * The account's catch-all confidence (its peers, its feedback, the domain's posture), laid on a
   * catch-all verdict after the shared cache, for that account alone.
   */
  catchAll?: CatchAllAssessor;
}

/** Verifies for API callers, charging their quota. */
export class VerificationService {
  readonly #deps: VerificationServiceDeps;
  readonly #now: () => Date;

  constructor(deps: VerificationServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** One address: charges one unit, or refuses with quota_exceeded when none is left. */
  async verifyOne(caller: Caller, email: string): Promise<VerifyOutcome> {
    const now = this.#now();
    const month = monthOf(now);
    const ceiling = verificationCeiling(caller);
    const charge = await this.#deps.usage.chargeVerifications(caller, month, 1, ceiling);
    if (charge.granted === 0) return { kind: 'quota_exceeded', quota: quotaState(ceiling, charge.used, now) };
    const result = await this.#verifyCached(addressKey(email), email, false, caller.accountId);
    let used = charge.used;
    if (isRefundable(result)) {
      await this.#deps.usage.refundVerifications(caller, month, 1);
      used = { account: used.account - 1, key: used.key - 1 };
    } else this.#deps.daily?.record(caller, result.status, 1, now);
    return { kind: 'ok', result, quota: quotaState(ceiling, used, now) };
  }

  /**
   * Up to 100 addresses: one bulk unit, one verification unit per unique normalized address.
   * When fewer units remain than needed, the first unique addresses that fit are processed and
   * every other entry is listed in `unprocessed`, in order.
   */
  async verifyBulk(caller: Caller, emails: readonly string[]): Promise<BulkOutcome> {
    const now = this.#now();
    const month = monthOf(now);
    const ceiling = verificationCeiling(caller);
    const keys = emails.map(addressKey);
    const unique = [...new Set(keys)];
    const { usage } = this.#deps;

    const bulk = await usage.chargeBulkRequest(caller, month, bulkCeiling(caller));
    if (!bulk.granted) {
      const current = await usage.usage(caller, month);
      const used = { account: current.account.verifications, key: current.key.verifications };
      return { kind: 'bulk_quota_exceeded', quota: quotaState(ceiling, used, now) };
    }
    const charge = await usage.chargeVerifications(caller, month, unique.length, ceiling);
    if (charge.granted === 0) {
      // Nothing will be done: the bulk unit is not spent on a refused request.
      await usage.refundBulkRequest(caller, month);
      return { kind: 'quota_exceeded', quota: quotaState(ceiling, charge.used, now) };
    }
    this.#deps.daily?.record(caller, 'bulk_requests', 1, now);

    const processed = new Map<string, Promise<VerificationResult>>();
    for (const key of unique.slice(0, charge.granted)) {
      const first = emails[keys.indexOf(key)]!;
      processed.set(key, this.#verifyCached(key, first, false, caller.accountId));
    }
    const verified = new Map<string, VerificationResult>();
    for (const [key, pending] of processed) verified.set(key, await pending);

    let spoiled = 0;
    for (const result of verified.values()) {
      if (isRefundable(result)) spoiled += 1;
      else this.#deps.daily?.record(caller, result.status, 1, now);
    }
    if (spoiled > 0) await usage.refundVerifications(caller, month, spoiled);

    const results: VerificationResult[] = [];
    const unprocessed: string[] = [];
    emails.forEach((email, i) => {
      const result = verified.get(keys[i]!);
      if (result === undefined) unprocessed.push(email);
      else results.push(result.email === email.trim() ? result : { ...result, email: email.trim() });
    });
    const used = { account: charge.used.account - spoiled, key: charge.used.key - spoiled };
    return { kind: 'ok', results, unprocessed, quota: quotaState(ceiling, used, now) };
  }

  /** The caller's quota as it stands, without charging (for responses that charge nothing). */
  async quotaState(caller: Caller): Promise<QuotaState> {
    const now = this.#now();
    const current = await this.#deps.usage.usage(caller, monthOf(now));
    const used = { account: current.account.verifications, key: current.key.verifications };
    return quotaState(verificationCeiling(caller), used, now);
  }

  /**
   * One address without charging anything: list jobs charge per address themselves. `fresh`
   * skips the cached result (a re-check of a greylisted address must ask the server again).
   */
  verifyUncharged(
    email: string,
    options: { fresh?: boolean; accountId?: string; listId?: string } = {},
  ): Promise<VerificationResult> {
    return this.#verifyCached(
      addressKey(email),
      email,
      options.fresh ?? false,
      options.accountId,
      options.listId,
    );
  }

  async #verifyCached(
    key: string,
    email: string,
    fresh: boolean,
    accountId?: string,
    listId?: string,
  ): Promise<VerificationResult> {
    // A list's addresses come domain by domain: its probe sessions may wait for the next ones.
    const result = await this.#verifyShared(key, email, fresh, accountId, listId !== undefined);
    // The result cache is every account's; feedback and catch-all peers are one account's own,
    // so they apply after. A bounced address is no longer a catch-all verdict: assessed after it.
    const { feedback, catchAll } = this.#deps;
    if (accountId === undefined) return result;
    const own = feedback === undefined ? result : await feedback.applyTo(accountId, result);
    return catchAll === undefined ? own : catchAll.assess(accountId, own, { listId });
  }

  async #verifyShared(
    key: string,
    email: string,
    fresh: boolean,
    accountId?: string,
    moreToCome = false,
  ): Promise<VerificationResult> {
    const ttl = this.#deps.resultTtlSeconds;
    if (ttl > 0 && !fresh) {
      const cached = await this.#deps.cache.get(key);
      if (cached !== undefined)
        return cached.email === email.trim() ? cached : { ...cached, email: email.trim() };
    }
    const result = await this.#deps.verifier.verify(email, { accountId, ...(moreToCome && { moreToCome }) });
    // DNS trouble is not a fact about the address: never remembered here (the DNS cache keeps a
    // failed lookup a few seconds, so a broken zone is not asked again at once). Uncached, a
    // result also never loses the refund mark a stored copy would not carry.
    if (ttl > 0 && result.reason !== 'dns_error') {
      const lifetime = INCONCLUSIVE_REASONS.has(result.reason)
        ? Math.min(ttl, this.#deps.inconclusiveTtlSeconds ?? DEFAULT_INCONCLUSIVE_TTL_SECONDS)
        : ttl;
      if (lifetime > 0) await this.#deps.cache.set(key, result, lifetime);
    }
    return result;
  }
}

/**
 * The identity of an address for deduplication and caching: NFC local part (case kept, as mailbox
 * servers may be case-sensitive) and the ASCII, lower-cased domain.
 */
export function addressKey(email: string): string {
  return addressKeyOf(normalizeAddress(email));
}

/** {@link addressKey} of an address already normalized. */
export function addressKeyOf(normalized: ReturnType<typeof normalizeAddress>): string {
  return `${normalized.localPart}@${normalized.asciiDomain ?? normalized.rawDomain}`;
}

/**
 * The domain a list groups an address under (lower-case), read back from its key: the key ends in
 * `@` and the domain, which never holds an `@` (the address is split at its last one). Lists store
 * and find their addresses by (domain, key), so this must stay the one way to get it.
 */
export function domainOfKey(addressKey: string): string {
  return addressKey.slice(addressKey.lastIndexOf('@') + 1).toLowerCase();
}

/** The quota headers' figures: the limit that holds the key, and what is left under both ceilings. */
export function quotaState(ceiling: Ceiling, used: Used, now: Date): QuotaState {
  const { untilMs, untilText } = monthBoundsOf(now);
  return {
    limit: keyLimit(ceiling),
    remaining: remainingUnder(ceiling, used),
    resetAt: untilText,
    resetSeconds: Math.max(1, Math.ceil((untilMs - now.getTime()) / 1000)),
  };
}
