/** The emulator's public types: the handles its add methods return and the `MailchimpEmulator` interface. */
import type { CampaignStatus, DestructiveCall, MemberStatus, WebhookDelivery } from './state.ts';

export type { CampaignStatus, DestructiveCall, MemberStatus, WebhookDelivery };

export interface EmulatedAccount {
  id: string;
  dc: string;
  apiKey: string;
  name: string;
}
export interface EmulatedAudience {
  id: string;
  name: string;
  accountId: string;
}
export interface EmulatedMember {
  id: string;
  email: string;
  status: MemberStatus;
  mergeFields: Record<string, unknown>;
  /** Names of the active tags. */
  tags: string[];
  lastChanged: Date;
}
export interface EmulatedCampaign {
  id: string;
  listId: string;
  title: string;
  status: CampaignStatus;
  savedSegmentId?: number;
  /** The recipients' segment conditions (a saved segment's, or the campaign's own). */
  segment?: SegmentConditions;
}
/** Segment conditions as Mailchimp writes them. */
export interface SegmentConditions {
  match: 'any' | 'all';
  conditions: Record<string, unknown>[];
}
export interface EmulatedSegment {
  id: number;
  name: string;
  type: 'saved' | 'static';
  options?: { match: 'any' | 'all'; conditions: Record<string, unknown>[] };
  /** Subscribed members in it now. */
  memberEmails: string[];
}
export interface EmulatedWebhook {
  id: string;
  url: string;
  events: Record<string, boolean>;
  sources: Record<string, boolean>;
}
export interface EmulatedMergeField {
  id: number;
  tag: string;
  name: string;
  type: string;
  options: Record<string, unknown>;
}
export interface AccountStats {
  maxInFlight: number;
  requests: number;
  /** Requests by `METHOD /pattern`, e.g. `PUT /lists/{list_id}/members/{subscriber_hash}`. */
  byRoute: Record<string, number>;
  /** Operations run inside batches (not counted in `requests`). */
  batchOperations: number;
}
export interface MemberSeed {
  email: string;
  status?: MemberStatus;
  mergeFields?: Record<string, unknown>;
  tags?: string[];
  lastChanged?: Date;
}
/** Any emulated object, by id (the Emulated* values returned by the add methods fit). */
export type Ref = { id: string };

export interface MailchimpEmulator {
  /** Base URL template for our client: `http://127.0.0.1:<port>/{dc}/3.0`. */
  baseUrlTemplate: string;
  /** OAuth endpoints' base: `http://127.0.0.1:<port>/oauth2` (authorize, token, metadata). */
  oauthBase: string;
  /** The API base of one account: the template with its data centre. */
  baseUrl(account: Ref): string;
  /** Adds an account with one API key `<32 hex>-<dc>` (dc default `us21`). */
  addAccount(options?: { dc?: string; name?: string }): EmulatedAccount;
  addAudience(account: Ref, options: { name: string }): EmulatedAudience;
  addMember(audience: Ref, options: MemberSeed): EmulatedMember;
  addMergeField(
    audience: Ref,
    options: { tag: string; name: string; type: string; options?: Record<string, unknown> },
  ): EmulatedMergeField;
  /** A campaign to the audience: to all its subscribed members, a saved segment, or conditions of its own. */
  addCampaign(
    account: Ref,
    options: {
      audience: Ref;
      title: string;
      savedSegmentId?: number;
      segment?: SegmentConditions;
      status?: CampaignStatus;
      /** When it was made (whole seconds); default now. */
      createdAt?: Date;
    },
  ): EmulatedCampaign;
  /** Its key now gets 401. */
  revokeKey(account: Ref): void;
  /** Its OAuth tokens now get 401. */
  revokeTokens(account: Ref): void;
  /** Who authorizes at the OAuth page: an account, or `deny` (redirect with `error=access_denied`). */
  oauthLoginAs(account: Ref | 'deny'): void;
  /**
   * The next `count` API requests of the account (of `method` only, when given) answer `status`
   * (429 with Retry-After if given); with `afterHandling`, each is carried out first and its answer
   * then lost (replaced by the fault).
   */
  injectFaults(
    account: Ref,
    fault: {
      status: 429 | 500 | 503;
      count: number;
      retryAfterSeconds?: number;
      method?: string;
      afterHandling?: boolean;
    },
  ): void;
  /** Added to every API request (settable). */
  latencyMs: number;
  /** Pause between batch processing steps (settable, default 10). */
  batchStepMs: number;
  stats(account: Ref): AccountStats;
  resetStats(account: Ref): void;
  /** A signup: adds (or re-subscribes) the member, then posts `subscribe` to the audience's webhooks. */
  fireSubscribe(
    audience: Ref,
    email: string,
    options?: { mergeFields?: Record<string, unknown>; source?: 'user' | 'admin' | 'api' },
  ): Promise<void>;
  /** The member unsubscribes: its status changes, then `unsubscribe` with `data[action]=unsub` is posted. */
  fireUnsubscribe(
    audience: Ref,
    email: string,
    options?: { source?: 'user' | 'admin' | 'api' },
  ): Promise<void>;
  /**
   * An admin (by default) archives the member, or with `permanent` deletes it for good (it then
   * answers 404), then `unsubscribe` with `data[action]=delete` is posted.
   */
  fireDelete(
    audience: Ref,
    email: string,
    options?: { permanent?: boolean; source?: 'user' | 'admin' | 'api' },
  ): Promise<void>;
  /** Waits for background effects (webhook deliveries started by API writes). */
  idle(): Promise<void>;
  members(audience: Ref): EmulatedMember[];
  member(audience: Ref, email: string): EmulatedMember | undefined;
  segments(audience: Ref): EmulatedSegment[];
  webhooks(audience: Ref): EmulatedWebhook[];
  mergeFields(audience: Ref): EmulatedMergeField[];
  campaign(campaign: Ref): EmulatedCampaign;
  /** DELETE member / delete-permanent requests the account received (Mailvet must send none). */
  destructiveCalls(account: Ref): DestructiveCall[];
  webhookDeliveries(): WebhookDelivery[];
  close(): Promise<void>;
}
