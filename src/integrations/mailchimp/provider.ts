/**
 * Mailchimp as a provider: API keys are 32 hex digits and `-<data centre>`; a session
 * reads the account, its audiences and their members through the typed client, and prepares an
 * audience for write-back (merge fields and saved segments, created once).
 */
import { createHash } from 'node:crypto';
import type { Campaign, DraftCampaign, ExcludedSegment, Exclusion, Recipient } from '../campaign-ports.ts';
import type {
  Audience,
  HookEvent,
  InFlightLimiter,
  Member,
  MemberPage,
  MemberQuery,
  MemberResult,
  MemberStatus,
  OpenedCredential,
  Provider,
  ProviderAccount,
  ProviderSession,
  WriteBackOptions,
  WriteOutcome,
} from '../ports.ts';
import { batchOutcome, submitBatch, writeOperations } from './batch-writes.ts';
import { excludeFromCampaign } from './campaign-exclusion.ts';
import { readCampaign, readDrafts, readRecipients } from './campaigns.ts';
import { DATA_CENTRE, MailchimpClient, MailchimpError } from './client.ts';
import { MailchimpOAuth } from './oauth.ts';
import { MERGE_FIELDS, SCORE_SEGMENTS } from './write-back.ts';

/** What the provider needs from the composition root. */
export interface MailchimpProviderOptions {
  /** MAILVET_MAILCHIMP_BASE_URL: `https://{dc}.api.mailchimp.com`. */
  baseUrlTemplate: string;
  limiter: InFlightLimiter;
  /** `fetch` behind the SSRF guard, for the API and for the OAuth endpoints (each with its own exceptions). */
  fetch: typeof fetch;
  oauthFetch?: typeof fetch;
  /** The operator's registered app: enables the OAuth flow. */
  oauth?: { loginUrl: string; clientId: string; clientSecret: string };
  /** Client retry tuning (tests shorten the waits). */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
}

const API_KEY = /^[0-9a-f]{32}-([a-z0-9]+)$/;

/** Audiences read per request: Mailchimp's most. */
const PAGE = 1000;

export class MailchimpProvider implements Provider {
  readonly name = 'mailchimp';
  readonly label = 'Mailchimp';
  readonly apiKeyShape = '32 hexadecimal digits, a dash and the data centre (…-us21)';
  readonly oauth?: MailchimpOAuth;
  readonly #options: MailchimpProviderOptions;

  constructor(options: MailchimpProviderOptions) {
    this.#options = options;
    if (options.oauth !== undefined)
      this.oauth = new MailchimpOAuth({ ...options.oauth, fetch: options.oauthFetch ?? options.fetch });
  }

  apiKeyDc(apiKey: string): string | null {
    const dc = API_KEY.exec(apiKey)?.[1];
    return dc !== undefined && DATA_CENTRE.test(dc) ? dc : null;
  }

  /**
   * Mailchimp posts events form-encoded: `type`, `data[list_id]`, `data[email]` among others. A
   * contact archived or deleted comes as `type=unsubscribe` with `data[action]=delete` (a plain
   * unsubscribe has `data[action]=unsub`, and is nothing a watch acts on).
   */
  hookEvent(body: Readonly<Record<string, unknown>>): HookEvent | null {
    const text = (name: string) => {
      const value = body[name];
      return typeof value === 'string' ? value.slice(0, 1024) : '';
    };
    const audienceId = text('data[list_id]');
    const email = text('data[email]');
    if (audienceId === '' || email === '') return null;
    if (text('type') === 'subscribe') return { kind: 'subscribe', audienceId, email };
    if (text('type') === 'unsubscribe' && text('data[action]') === 'delete')
      return { kind: 'delete', audienceId, email };
    return null;
  }

  session(credential: OpenedCredential, limiterKey: string): ProviderSession {
    const client = new MailchimpClient({
      credential:
        credential.kind === 'api_key'
          ? { kind: 'api_key', apiKey: credential.secret, dc: credential.dc }
          : { kind: 'oauth', accessToken: credential.secret, dc: credential.dc },
      baseUrlTemplate: this.#options.baseUrlTemplate,
      limiter: this.#options.limiter,
      limiterKey,
      fetch: this.#options.fetch,
      ...this.#options.retry,
    });
    return new MailchimpSession(client, credential.dc, this.#options.fetch);
  }
}

interface RootAnswer {
  account_id: string;
  account_name: string;
}

interface MembersAnswer {
  members: Array<{
    id: string;
    email_address: string;
    status: MemberStatus;
    last_changed: string;
    merge_fields?: Record<string, unknown>;
  }>;
  total_items: number;
}

interface MergeFieldsAnswer {
  merge_fields: Array<{ tag: string }>;
}

interface SegmentsAnswer {
  segments: Array<{ id: number; name: string }>;
}

/** Only what a run reads of a member: fewer bytes from Mailchimp for large audiences. */
const MEMBER_FIELDS = [
  'members.id',
  'members.email_address',
  'members.status',
  'members.last_changed',
  'members.merge_fields.MV_CHECKED',
  'total_items',
].join(',');

interface ListsAnswer {
  lists: Array<{ id: string; name: string; stats?: { member_count?: number } }>;
  total_items: number;
}

class MailchimpSession implements ProviderSession {
  constructor(
    readonly client: MailchimpClient,
    readonly dc: string,
    /** Fetches batch result archives (plain URLs on Mailchimp's storage, no credentials). */
    readonly fetchArchive: typeof fetch,
  ) {}

  async account(): Promise<ProviderAccount> {
    const root = await this.client.get<RootAnswer>('/', { fields: 'account_id,account_name' });
    return { id: root.account_id, name: root.account_name, dc: this.dc };
  }

  async audiences(): Promise<Audience[]> {
    const audiences: Audience[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.client.get<ListsAnswer>('/lists', {
        count: PAGE,
        offset,
        fields: 'lists.id,lists.name,lists.stats.member_count,total_items',
      });
      for (const list of page.lists) {
        audiences.push({ id: list.id, name: list.name, memberCount: list.stats?.member_count ?? 0 });
      }
      if (page.lists.length < PAGE || audiences.length >= page.total_items) return audiences;
    }
  }

  async members(audienceId: string, query: MemberQuery): Promise<MemberPage> {
    // One status per request: Mailchimp's `status` filter takes a single value.
    if (query.statuses.length !== 1) throw new RangeError('members are read one status at a time');
    const page = await this.client.get<MembersAnswer>(`/lists/${encodeURIComponent(audienceId)}/members`, {
      count: Math.min(query.count, PAGE),
      offset: query.offset,
      status: query.statuses[0],
      since_last_changed: query.changedSince,
      fields: MEMBER_FIELDS,
    });
    return {
      total: page.total_items,
      members: page.members.map(toMember),
    };
  }

  submitWrites(
    audienceId: string,
    results: readonly MemberResult[],
    options: WriteBackOptions,
  ): Promise<string> {
    return submitBatch(this.client, writeOperations(audienceId, results, options));
  }

  writeOutcome(jobId: string): Promise<WriteOutcome | null> {
    return batchOutcome(this.client, this.fetchArchive, jobId);
  }

  async member(audienceId: string, email: string): Promise<Member | null> {
    const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    try {
      const member = await this.client.get<MembersAnswer['members'][number]>(
        `/lists/${encodeURIComponent(audienceId)}/members/${hash}`,
        { fields: MEMBER_FIELDS.replaceAll('members.', '').replace(',total_items', '') },
      );
      return toMember(member);
    } catch (error) {
      if (error instanceof MailchimpError && error.status === 404) return null;
      throw error;
    }
  }

  async writeMember(audienceId: string, result: MemberResult, options: WriteBackOptions): Promise<void> {
    // The batch's operations, sent one by one: two requests for one member beat a batch's round trips.
    for (const operation of writeOperations(audienceId, [result], options)) {
      await this.client.request(operation.method, operation.path, { body: JSON.parse(operation.body) });
    }
  }

  async watch(audienceId: string, url: string): Promise<string> {
    const webhook = await this.client.post<{ id: string }>(
      `/lists/${encodeURIComponent(audienceId)}/webhooks`,
      {
        url,
        // Unsubscribe events carry deletions (`data[action]=delete`): they erase the address.
        events: { subscribe: true, unsubscribe: true },
        sources: { user: true, admin: true, api: true },
      },
    );
    return webhook.id;
  }

  async unwatch(audienceId: string, webhookId: string): Promise<void> {
    try {
      await this.client.delete(
        `/lists/${encodeURIComponent(audienceId)}/webhooks/${encodeURIComponent(webhookId)}`,
      );
    } catch (error) {
      if (!(error instanceof MailchimpError && error.status === 404)) throw error;
    }
  }

  draftCampaigns(): Promise<DraftCampaign[]> {
    return readDrafts(this.client);
  }

  campaign(campaignId: string): Promise<Campaign | null> {
    return readCampaign(this.client, campaignId);
  }

  campaignRecipients(campaign: Campaign): AsyncIterable<Recipient[]> {
    return readRecipients(this.client, campaign);
  }

  excludeFromCampaign(campaign: Campaign, exclusion: Exclusion): Promise<ExcludedSegment> {
    return excludeFromCampaign(this.client, campaign, exclusion);
  }

  async prepareWriteBack(audienceId: string, options: WriteBackOptions): Promise<void> {
    const list = `/lists/${encodeURIComponent(audienceId)}`;
    // Segments compare MV_SCORE: they need the fields as well.
    if (options.fields || options.segments) {
      const existing = await this.client.get<MergeFieldsAnswer>(`${list}/merge-fields`, {
        count: PAGE,
        fields: 'merge_fields.tag',
      });
      const tags = new Set(existing.merge_fields.map((field) => field.tag));
      for (const field of MERGE_FIELDS) {
        if (tags.has(field.tag)) continue;
        await this.client.create(`${list}/merge-fields`, { ...field, public: false }, async () =>
          (
            await this.client.get<MergeFieldsAnswer>(`${list}/merge-fields`, {
              count: PAGE,
              fields: 'merge_fields.tag',
            })
          ).merge_fields.some((each) => each.tag === field.tag),
        );
      }
    }
    if (options.segments) {
      const existing = await this.client.get<SegmentsAnswer>(`${list}/segments`, {
        count: PAGE,
        type: 'saved',
        fields: 'segments.id,segments.name',
      });
      const names = new Set(existing.segments.map((segment) => segment.name));
      for (const segment of SCORE_SEGMENTS) {
        if (names.has(segment.name)) continue;
        await this.client.create(
          `${list}/segments`,
          {
            name: segment.name,
            options: {
              match: 'all',
              conditions: segment.conditions.map((condition) => ({
                condition_type: 'TextMerge',
                field: 'MV_SCORE',
                ...condition,
              })),
            },
          },
          async () =>
            (
              await this.client.get<SegmentsAnswer>(`${list}/segments`, {
                count: PAGE,
                type: 'saved',
                fields: 'segments.id,segments.name',
              })
            ).segments.some((each) => each.name === segment.name),
        );
      }
    }
  }
}

function toMember(member: MembersAnswer['members'][number]): Member {
  return {
    id: member.id,
    email: member.email_address,
    status: member.status,
    lastChanged: member.last_changed,
    checkedOn: checkedOn(member.merge_fields?.MV_CHECKED),
  };
}

/** `MV_CHECKED` as a day, or null when absent or not a date. */
function checkedOn(value: unknown): string | null {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}
