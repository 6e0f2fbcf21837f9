/**
 * Ports of the feedback domain: the sender's real outcomes (bounces, deliveries,
 * complaints), recorded per account. An account's feedback decides only that account's verdicts
 * (`bounced`) and its own catch-all statistics; it is never shared between accounts.
 */

/** The outcomes a sender reports, as the API names them. */
export const FEEDBACK_EVENTS = ['hard_bounce', 'soft_bounce', 'delivered', 'complaint'] as const;
export type FeedbackEvent = (typeof FEEDBACK_EVENTS)[number];

/** One outcome of one address, ready to store. */
export interface FeedbackRecord {
  /** The address's feedback identity (`feedbackAddressOf`): trimmed, NFC, IDNA domain, lower-cased. */
  address: string;
  /** Its ASCII, lower-cased domain. */
  domain: string;
  event: FeedbackEvent;
  /** When it happened: ISO-8601 UTC with milliseconds, so text order is time order. */
  at: string;
}

/** What a `record` did. */
export type RecordOutcome =
  | {
      kind: 'recorded';
      /** Events stored now. */
      recorded: number;
      /** Events already stored (same address, event and instant), or repeated in the same call. */
      duplicates: number;
    }
  /** Storing them would take the account past `maxEvents`: nothing was stored. */
  | { kind: 'full'; stored: number; maxEvents: number };

/** The latest instant of each event recorded for one address; null when there is none. */
export type AddressFeedback = Readonly<Record<FeedbackEvent, string | null>>;

/** Feedback of one account at one domain, counted over its addresses (for catch-all confidence). */
export interface DomainFeedbackStats {
  /** Addresses at the domain with any feedback. */
  addresses: number;
  /** Addresses with at least one event of each kind. */
  byEvent: Readonly<Record<FeedbackEvent, number>>;
  /** Addresses bounced by the rule of `isBounced` (a hard bounce not followed by a delivery). */
  bounced: number;
}

/** Where feedback is kept: one database table, per account. */
export interface FeedbackStore {
  /**
   * Stores the account's events, skipping those already stored. All or nothing: when the new
   * ones would take the account past `maxEvents` stored events, none is stored. Exact under
   * concurrent calls (the account's row is held while counting).
   */
  record(accountId: string, events: readonly FeedbackRecord[], maxEvents: number): Promise<RecordOutcome>;
  /** The account's latest events of each kind for one address (by feedback identity). */
  outcomeOf(accountId: string, address: string): Promise<AddressFeedback>;
  /** The account's feedback at one domain (ASCII, lower-case), counted per address. */
  domainStats(accountId: string, domain: string): Promise<DomainFeedbackStats>;
  /**
   * Addresses (feedback identities) at the domain with a `delivered` event recorded by the
   * account, `limit` at most: catch-all confidence reads them as confirmed peers.
   */
  deliveredAtDomain(accountId: string, domain: string, limit: number): Promise<string[]>;
  /** How many events the account has stored. */
  countEvents(accountId: string): Promise<number>;
  /** Whether the account has stored any event (one index probe, whatever their number). */
  hasEvents(accountId: string): Promise<boolean>;
}
