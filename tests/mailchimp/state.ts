/**
 * The emulator's data model: accounts, audiences (lists) with their merge fields, members, segments
 * (saved ones and static ones, which Mailchimp now calls tags) and webhooks; campaigns; batches; OAuth
 * codes and tokens. Plain records kept in one `World`; the route files read and change them.
 */
import { createHash, randomBytes } from 'node:crypto';

export type MemberStatus =
  | 'subscribed'
  | 'unsubscribed'
  | 'cleaned'
  | 'pending'
  | 'transactional'
  | 'archived';
/** The statuses a client may write (`archived` comes only from DELETE). */
export const WRITABLE_STATUSES = [
  'subscribed',
  'unsubscribed',
  'cleaned',
  'pending',
  'transactional',
] as const;
export const ALL_STATUSES: readonly MemberStatus[] = [...WRITABLE_STATUSES, 'archived'];

/** A request an emulated account saw that deletes or archives a contact (Mailvet must never send one). */
export interface DestructiveCall {
  method: string;
  path: string;
  via: 'api' | 'batch';
  at: Date;
}

export interface Fault {
  status: 429 | 500 | 503;
  remaining: number;
  retryAfterSeconds?: number;
  /** Only requests of this method count (and fail). */
  method?: string;
  /** The request is carried out, then its answer replaced by the fault (an answer lost on the way back). */
  afterHandling?: boolean;
}

export interface Account {
  id: string;
  dc: string;
  apiKey: string;
  name: string;
  loginId: string;
  email: string;
  keyRevoked: boolean;
  createdAt: Date;
  inFlight: number;
  maxInFlight: number;
  requests: number;
  byRoute: Record<string, number>;
  batchOperations: number;
  faults: Fault[];
  destructive: DestructiveCall[];
}

export interface MergeField {
  id: number;
  tag: string;
  name: string;
  type: string;
  required: boolean;
  defaultValue: string;
  public: boolean;
  displayOrder: number;
  options: Record<string, unknown>;
  helpText: string;
}

export interface Member {
  hash: string;
  email: string;
  uniqueEmailId: string;
  contactId: string;
  webId: number;
  status: MemberStatus;
  /** Values by merge tag, already normalised (numbers as numbers, dates as YYYY-MM-DD). */
  mergeFields: Record<string, unknown>;
  /** Ids of the static segments (tags) the member is in: its active tags. */
  tagIds: Set<number>;
  lastChanged: Date;
  timestampSignup: Date;
  source: string;
  emailType: string;
  language: string;
  vip: boolean;
}

export interface SegmentOptions {
  match: 'any' | 'all';
  conditions: Record<string, unknown>[];
}

export interface Segment {
  id: number;
  name: string;
  type: 'saved' | 'static';
  createdAt: Date;
  updatedAt: Date;
  options?: SegmentOptions;
}

export interface Webhook {
  id: string;
  url: string;
  events: Record<string, boolean>;
  sources: Record<string, boolean>;
}

export interface Audience {
  id: string;
  webId: number;
  name: string;
  accountId: string;
  createdAt: Date;
  mergeFields: MergeField[];
  nextMergeId: number;
  members: Map<string, Member>;
  segments: Map<number, Segment>;
  webhooks: Map<string, Webhook>;
}

/** The campaign states the emulator keeps (Mailchimp has more: `paused`, `canceled`, `archived`...). */
export type CampaignStatus = 'save' | 'schedule' | 'sending' | 'sent';

export interface Campaign {
  id: string;
  webId: number;
  accountId: string;
  listId: string;
  title: string;
  subjectLine: string;
  status: CampaignStatus;
  createdAt: Date;
  segmentOpts?: { saved_segment_id?: number; match?: string; conditions?: Record<string, unknown>[] };
}

export interface BatchOperation {
  method: string;
  path: string;
  params?: Record<string, unknown>;
  body?: string;
  operation_id?: string;
}

export interface BatchResult {
  status_code: number;
  operation_id: string | null;
  /** The operation's response body as a JSON string, as the archive holds it. */
  response: string;
}

export interface Batch {
  id: string;
  accountId: string;
  status: 'pending' | 'started' | 'finished';
  operations: BatchOperation[];
  results: BatchResult[];
  erroredOperations: number;
  submittedAt: Date;
  completedAt?: Date;
  archive?: Buffer;
  cancelled: boolean;
}

export interface WebhookDelivery {
  url: string;
  listId: string;
  type: string;
  body: string;
  status?: number;
  error?: string;
}

export interface OAuthCode {
  accountId: string;
  clientId: string;
  redirectUri: string;
}

/** Everything the emulator knows; one per running emulator. */
export class World {
  readonly accounts = new Map<string, Account>();
  readonly audiences = new Map<string, Audience>();
  readonly campaigns = new Map<string, Campaign>();
  readonly batches = new Map<string, Batch>();
  /** OAuth access token → account id. */
  readonly tokens = new Map<string, string>();
  readonly codes = new Map<string, OAuthCode>();
  readonly deliveries: WebhookDelivery[] = [];
  /** `http://127.0.0.1:<port>`, set once the server listens. */
  origin = '';
  /** Pause between steps of a batch (each step runs up to 50 operations). */
  batchStepMs = 10;
  /** Who "logs in" at the OAuth authorize page: an account id, `deny`, or the first account. */
  oauthUser: string | 'deny' | undefined;
  private nextId = 1000;

  /** A fresh integer id (segments, tags, web ids share one sequence, as ids never collide in Mailchimp). */
  serial(): number {
    return this.nextId++;
  }

  audienceOf(account: Account, listId: string): Audience | undefined {
    const audience = this.audiences.get(listId);
    return audience?.accountId === account.id ? audience : undefined;
  }

  audiencesOf(account: Account): Audience[] {
    return [...this.audiences.values()].filter((audience) => audience.accountId === account.id);
  }

  apiBase(dc: string): string {
    return `${this.origin}/${dc}/3.0`;
  }
}

/** `n` random lower-case hex characters. */
export function hex(n: number): string {
  return randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);
}

/** The subscriber hash: MD5 of the lower-cased address. */
export function subscriberHash(email: string): string {
  return createHash('md5').update(email.toLowerCase()).digest('hex');
}

/** Mailchimp's timestamp shape: `2015-10-21T15:41:36+00:00` (seconds, UTC offset spelled out). */
export function mcTime(date: Date | undefined): string {
  return date ? `${date.toISOString().slice(0, 19)}+00:00` : '';
}

/** A date at Mailchimp's resolution (whole seconds). */
export function wholeSeconds(date: Date = new Date()): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** The merge fields every new audience has (Mailchimp docs: FNAME, LNAME, ADDRESS, PHONE). */
export function defaultMergeFields(): MergeField[] {
  const base = { required: false, defaultValue: '', public: true, helpText: '' };
  return [
    {
      ...base,
      id: 1,
      tag: 'FNAME',
      name: 'First Name',
      type: 'text',
      displayOrder: 2,
      options: { size: 25 },
    },
    { ...base, id: 2, tag: 'LNAME', name: 'Last Name', type: 'text', displayOrder: 3, options: { size: 25 } },
    {
      ...base,
      id: 3,
      tag: 'ADDRESS',
      name: 'Address',
      type: 'address',
      displayOrder: 4,
      options: { default_country: 164 },
    },
    { ...base, id: 4, tag: 'PHONE', name: 'Phone Number', type: 'phone', displayOrder: 5, options: {} },
  ];
}
