/**
 * Ports of the integrations domain: an email platform behind a provider port
 * (Mailchimp is its first adapter, `mailchimp/`; another platform is another folder), the store of
 * connected integrations, and the limiter that keeps requests to one platform account under its
 * concurrency limit across processes.
 */
import type { Status } from '../verification/report.ts';
import type {
  Campaign,
  DraftCampaign,
  ExcludedSegment,
  Exclusion,
  LastCampaignCheck,
  Recipient,
} from './campaign-ports.ts';

/** A provider's name in the API and in stored rows (`mailchimp`): the `name` of its adapter. */
export type ProviderName = string;

/** A connected integration as stored; its credentials stay sealed here. */
export interface Integration {
  id: string;
  accountId: string;
  provider: ProviderName;
  /** The platform account's name and id, and its data centre. */
  accountName: string;
  providerAccountId: string;
  dc: string;
  /** `connected`, or `disconnected` when the platform refused the credentials (revoked key, removed app). */
  state: 'connected' | 'disconnected';
  /** Why the state is what it is, for the owner; null when connected. */
  message: string | null;
  /** `api_key` or `oauth`. */
  authKind: 'api_key' | 'oauth';
  /** The sealed credential (`credentials.ts`): never returned by the API, never logged. */
  sealedCredential: string;
  createdAt: string;
}

export interface IntegrationStore {
  createIntegration(input: Integration): Promise<Integration>;
  /** The account's integration; null when none (or another account's). */
  findIntegration(accountId: string, id: string): Promise<Integration | null>;
  listIntegrations(accountId: string): Promise<Integration[]>;
  /** Records that the platform refused the credentials; returns false when there is no such integration. */
  markDisconnected(accountId: string, id: string, message: string): Promise<boolean>;
  /** Removes the integration and its credentials; false when there was none. */
  deleteIntegration(accountId: string, id: string): Promise<boolean>;
  createWatch(watch: Watch): Promise<Watch>;
  /** Records the platform's id of the watch's webhook. */
  setWatchWebhook(id: string, webhookId: string): Promise<void>;
  listWatches(accountId: string, integrationId: string): Promise<Watch[]>;
  findWatch(accountId: string, integrationId: string, id: string): Promise<Watch | null>;
  /** The watch whose hook token hashes to this; null when none. */
  findWatchByTokenHash(tokenHash: string): Promise<Watch | null>;
  deleteWatch(id: string): Promise<void>;
  /**
   * Claims the member for verification through the watch: true, and `at` recorded, when it was
   * never verified through it or last before `notSince`; false otherwise (a replayed event). Atomic.
   */
  claimWatchMember(watchId: string, memberId: string, at: string, notSince: string): Promise<boolean>;
  /** Gives back the claim made at `at` (nothing was verified): the member may be claimed again at once. */
  releaseWatchMember(watchId: string, memberId: string, at: string): Promise<void>;
  /** Keeps the address key of a member claimed at `at`, for a deletion that names only the member. */
  noteWatchMemberAddress(watchId: string, memberId: string, at: string, addressKey: string): Promise<void>;
  /** The connected and disconnected integrations of every account on this platform account (a HubSpot portal). */
  integrationsOnPlatformAccount(provider: ProviderName, providerAccountId: string): Promise<Integration[]>;
  /** Every watch whose webhook id is this (HubSpot's `polling`): the polling task's work. */
  watchesWithWebhook(webhookId: string): Promise<Watch[]>;
  /** Moves a polled watch's cursor from `from` to `to`; false when another process moved it first. */
  advanceWatchCursor(id: string, from: string | null, to: string): Promise<boolean>;
  /**
   * The addresses the integration's runs and watches knew for this member id (its runs' list rows,
   * its watches' members), for a deletion that names only the member; erased rows are not found.
   */
  addressesOfMember(integrationId: string, memberId: string): Promise<string[]>;
  /**
   * Whether the integration's runs or watches met the address (`addressKey`, at `domain`): a list row
   * of one of its runs or a member one of its watches verified. Erased rows are not found.
   */
  knowsAddress(integrationId: string, address: { addressKey: string; domain: string }): Promise<boolean>;
  /** Forgets the integration's watches' records of the member (after its address was erased). */
  forgetWatchMember(integrationId: string, memberId: string): Promise<void>;
  /** Keeps `check` as its integration's last pre-campaign check, replacing the one before. */
  saveLastCampaignCheck(check: LastCampaignCheck): Promise<void>;
  /** The integration's last pre-campaign check; null when none (or another account's). */
  lastCampaignCheck(accountId: string, integrationId: string): Promise<LastCampaignCheck | null>;
}

/** A watched audience: new subscribers are verified and written back as they arrive. */
export interface Watch {
  id: string;
  accountId: string;
  integrationId: string;
  audienceId: string;
  /** SHA-256 of the hook URL's token. */
  tokenHash: string;
  /** The platform's id of the webhook; null until registered. */
  webhookId: string | null;
  createdAt: string;
  /** A polled watch's last look (the newest creation instant seen, ISO-8601); null when not polled. */
  pollCursor?: string | null;
}

/** The platform account behind a credential. */
export interface ProviderAccount {
  id: string;
  name: string;
  dc: string;
}

/** An audience (Mailchimp's list) with its member count. */
export interface Audience {
  id: string;
  name: string;
  memberCount: number;
}

/** A credential as opened from the store: the API key or OAuth token, and the data centre. */
export interface OpenedCredential {
  kind: 'api_key' | 'oauth';
  secret: string;
  dc: string;
}

/** An email platform: how its credentials look, and a session acting with one. */
export interface Provider {
  readonly name: ProviderName;
  /** How the platform is named to people (messages, list names). */
  readonly label: string;
  /** What its API keys look like, for the owner who pasted something else. */
  readonly apiKeyShape: string;
  /** The data centre an API key of the platform's shape names; null for any other string. */
  apiKeyDc(apiKey: string): string | null;
  /** A session for one integration: `limiterKey` names its platform account for the concurrency limit. */
  session(credential: OpenedCredential, limiterKey: string): ProviderSession;
  /** The OAuth 2 web flow, when the operator registered an app with the platform. */
  readonly oauth?: ProviderOAuth;
  /**
   * Reads a webhook call the platform made to a watch's hook URL (its parsed form or JSON body);
   * null when it is nothing a watch acts on.
   */
  hookEvent(body: Readonly<Record<string, unknown>>): HookEvent | null;
}

/** A new subscriber as the platform's webhook tells it: only a hint, read back before it is used. */
export interface SubscribeEvent {
  kind?: 'subscribe';
  audienceId: string;
  email: string;
}

/**
 * A contact deleted from an audience, as the platform's webhook tells it: a hint too. The address
 * is erased from the account's data only once the platform confirms it no longer has the contact.
 */
export interface DeleteEvent {
  kind: 'delete';
  audienceId: string;
  email: string;
}

/** What a watch acts on: a new subscriber (no `kind`, or `subscribe`), or a deleted contact. */
export type HookEvent = SubscribeEvent | DeleteEvent;

/** OAuth 2's authorization-code flow with a platform. */
export interface ProviderOAuth {
  /** Where to send the browser: the platform's consent page, coming back to `redirectUri` with `state`. */
  authorizeUrl(redirectUri: string, state: string): string;
  /** Trades the one-time code for an access token and the data centre it works in. */
  exchange(code: string, redirectUri: string): Promise<{ accessToken: string; dc: string }>;
}

/** The platform refused or failed a request (after its retries); `status` is its HTTP status, null for no answer. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The platform refused the credentials (a revoked key, a removed app): nothing works until reconnected. */
export class ProviderAuthError extends ProviderError {
  constructor(message: string) {
    super(message, 401);
    this.name = 'ProviderAuthError';
  }
}

/** A contact's subscription state, as Mailchimp names them. */
export type MemberStatus =
  | 'subscribed'
  | 'unsubscribed'
  | 'cleaned'
  | 'pending'
  | 'transactional'
  | 'archived';

/** A contact of an audience, with only what a run needs. */
export interface Member {
  /** The platform's id (Mailchimp: the MD5 of the lower-cased address). */
  id: string;
  email: string;
  status: MemberStatus;
  /** ISO instant of its last change. */
  lastChanged: string;
  /** `MV_CHECKED`: the day Mailvet last verified it (YYYY-MM-DD); null when never. */
  checkedOn: string | null;
}

/** One page of an audience's members. */
export interface MemberPage {
  members: Member[];
  /** Members matching the query in all. */
  total: number;
}

export interface MemberQuery {
  statuses: readonly MemberStatus[];
  /** Only members changed at or after this ISO instant. */
  changedSince?: string;
  offset: number;
  /** At most 1,000 (Mailchimp's page). */
  count: number;
}

/** What a run may write back. */
export interface WriteBackOptions {
  fields: boolean;
  tags: boolean;
  segments: boolean;
  unsubscribeInvalid: boolean;
}

/** A verified member's result, as written back. */
export interface MemberResult {
  memberId: string;
  status: Status;
  score: number;
  /** The day of the verification, YYYY-MM-DD. */
  checkedOn: string;
}

/** What a finished write did: members fully written, and those with a refused write. */
export interface WriteOutcome {
  written: number;
  errors: Array<{ memberId: string; message: string }>;
}

/** What an integration does with its platform, once connected. */
export interface ProviderSession {
  /** The account the credential belongs to: also proves the credential works. */
  account(): Promise<ProviderAccount>;
  audiences(): Promise<Audience[]>;
  /** One page of an audience's members, filtered by status and change time. */
  members(audienceId: string, query: MemberQuery): Promise<MemberPage>;
  /** Creates what write-back needs on the audience when missing (merge fields, saved segments); idempotent. */
  prepareWriteBack(audienceId: string, options: WriteBackOptions): Promise<void>;
  /**
   * Hands the platform the writes of these results in one asynchronous job (Mailchimp: a batch
   * operation); its id, for `writeOutcome`. Writing a result twice leaves the same state.
   */
  submitWrites(
    audienceId: string,
    results: readonly MemberResult[],
    options: WriteBackOptions,
  ): Promise<string>;
  /** The outcome of a submitted job; null while the platform is still working on it. */
  writeOutcome(jobId: string): Promise<WriteOutcome | null>;
  /** The audience's member with this address; null when there is none. */
  member(audienceId: string, email: string): Promise<Member | null>;
  /**
   * The audience's member with this platform id, read from the platform; null when it has none (or
   * it is not in the audience). Absent where events name members by address only.
   */
  memberById?(audienceId: string, memberId: string): Promise<Member | null>;
  /**
   * Contacts created after `after` and at or before `before` (ISO-8601), oldest first, at most
   * `limit`, each with its creation instant and the member when it is one of the audience's (else
   * null): a polled watch's look. Absent where watches are webhooks.
   */
  createdMembers?(
    audienceId: string,
    after: string,
    limit: number,
    before?: string,
  ): Promise<Array<{ member: Member | null; createdAt: string }>>;
  /** Writes one member's result at once (a watch's new subscriber), without a batch. */
  writeMember(audienceId: string, result: MemberResult, options: WriteBackOptions): Promise<void>;
  /** Registers a webhook at `url` for subscribe events (and deletions, where the platform sends them); its id. */
  watch(audienceId: string, url: string): Promise<string>;
  /** Removes the webhook; a webhook already gone is not an error. */
  unwatch(audienceId: string, webhookId: string): Promise<void>;
  /**
   * The platform's draft campaigns, newest first (at most a page of them), for the owner to pick
   * one to check. Absent on a platform without campaigns.
   */
  draftCampaigns?(): Promise<DraftCampaign[]>;
  /** The campaign (the pre-campaign check); null when the platform has none of that id. */
  campaign(campaignId: string): Promise<Campaign | null>;
  /** The campaign's recipients a page at a time: its audience's subscribed members within its segment. */
  campaignRecipients(campaign: Campaign): AsyncIterable<Recipient[]>;
  /** Narrows a draft campaign to a segment of its recipients without the excluded ones; that segment. */
  excludeFromCampaign(campaign: Campaign, exclusion: Exclusion): Promise<ExcludedSegment>;
}

/**
 * At most `limit` holders of `key` at once; `acquire` waits for a slot and resolves with its
 * release. In memory for one process, on Redis across processes.
 */
export interface InFlightLimiter {
  acquire(key: string, limit: number): Promise<() => void>;
}

/**
 * A rolling window of requests per key (HubSpot's 10 seconds per portal): `reserve` records one
 * request and resolves 0 when the window has room, else the wait in ms before it may have room. In
 * memory for one process, on Redis across processes.
 */
export interface RequestWindow {
  reserve(key: string, limit: number, windowMs: number): Promise<number>;
}

/** The platform took the credential but it lacks what Mailvet needs (HubSpot: scopes); the message says what. */
export class CredentialInsufficient extends ProviderAuthError {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialInsufficient';
  }
}

/**
 * The platform refused a request for a permission the credential was not granted (HubSpot's 403
 * `MISSING_SCOPES`): the connection still works for the rest, so it is not a refusal of the
 * credential. `scopes` names what to grant.
 */
export class ProviderScopeMissing extends ProviderError {
  constructor(
    message: string,
    readonly scopes: readonly string[],
  ) {
    super(message, 403);
    this.name = 'ProviderScopeMissing';
  }
}
