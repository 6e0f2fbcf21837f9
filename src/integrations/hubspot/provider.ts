/**
 * HubSpot as a provider: private app tokens (`pat-<region>-<uuid>`) or OAuth; a portal's
 * audiences are its contact lists and "All contacts"; results are written to contact properties
 * in batches of 100; score "segments" are DYNAMIC lists; a campaign is a marketing email. Nothing
 * is ever deleted or archived in the portal.
 */
import { createHash } from 'node:crypto';
import type { Campaign, DraftCampaign, ExcludedSegment, Exclusion, Recipient } from '../campaign-ports.ts';
import {
  type Audience,
  CredentialInsufficient,
  type InFlightLimiter,
  type Member,
  type MemberPage,
  type MemberQuery,
  type MemberResult,
  type OpenedCredential,
  type Provider,
  type ProviderAccount,
  type ProviderSession,
  type RequestWindow,
  type SubscribeEvent,
  type WriteBackOptions,
  type WriteOutcome,
} from '../ports.ts';
import { excludeFromEmail, readDraftEmails, readEmail, readEmailRecipients } from './campaigns.ts';
import { HubSpotClient } from './client.ts';
import { ALL_CONTACTS, type ContactRecord, MEMBER_PROPERTIES, MemberStreams, toMember } from './contacts.ts';
import { createdContacts, watchedContact } from './new-contacts.ts';
import { HubSpotOAuth, REQUIRED_SCOPES } from './oauth.ts';
import { type AccessTokens, type OAuthApp, oauthTokens, privateAppToken } from './tokens.ts';
import { outcomeOf, prepareWriteBack, writeResults } from './writes.ts';

export interface HubSpotProviderOptions {
  /** MAILVET_HUBSPOT_BASE_URL: `https://api.hubapi.com`. */
  baseUrl: string;
  inFlight: InFlightLimiter;
  window: RequestWindow;
  /** MAILVET_HUBSPOT_REQUESTS_PER_10S. */
  perTenSeconds: number;
  /** `fetch` behind the SSRF guard. */
  fetch: typeof fetch;
  /** The operator's app (MAILVET_HUBSPOT_CLIENT_ID, _SECRET, _LOGIN_URL): enables OAuth. */
  oauth?: { loginUrl: string; clientId: string; clientSecret: string };
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  now?: () => number;
}

/** A watch's webhook id on HubSpot: the app's events reach it, or it is polled. */
export const APP_EVENTS = 'app-events';
export const POLLING = 'polling';

const PRIVATE_APP_TOKEN = /^pat-([a-z]{2}\d)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class HubSpotProvider implements Provider {
  readonly name = 'hubspot';
  readonly label = 'HubSpot';
  readonly apiKeyShape = "a private app's access token (pat-na1-…)";
  readonly oauth?: HubSpotOAuth;
  readonly #options: HubSpotProviderOptions;
  readonly #app: OAuthApp | undefined;

  constructor(options: HubSpotProviderOptions) {
    this.#options = options;
    if (options.oauth !== undefined) {
      this.#app = {
        baseUrl: options.baseUrl,
        clientId: options.oauth.clientId,
        clientSecret: options.oauth.clientSecret,
        fetch: options.fetch,
        ...(options.now && { now: options.now }),
      };
      this.oauth = new HubSpotOAuth(this.#app, options.oauth.loginUrl);
    }
  }

  apiKeyDc(apiKey: string): string | null {
    return PRIVATE_APP_TOKEN.exec(apiKey)?.[1] ?? null;
  }

  /** HubSpot's events come to the app's one URL (`/hooks/hubspot`), not to a watch's. */
  hookEvent(): SubscribeEvent | null {
    return null;
  }

  session(credential: OpenedCredential): ProviderSession {
    let tokens: AccessTokens;
    if (credential.kind === 'api_key') tokens = privateAppToken(credential.secret);
    else if (this.#app !== undefined) tokens = oauthTokens(this.#app, credential.secret);
    else tokens = { current: () => Promise.reject(noApp()), afterRefusal: () => Promise.reject(noApp()) };
    const client = new HubSpotClient({
      baseUrl: this.#options.baseUrl,
      tokens,
      inFlight: this.#options.inFlight,
      window: this.#options.window,
      // The limits are kept per credential, not per integration: the requests of the connection
      // itself (before the portal is known) count with the runs that follow.
      limiterKey: `hubspot:${createHash('sha256').update(credential.secret).digest('base64url').slice(0, 22)}`,
      perTenSeconds: this.#options.perTenSeconds,
      fetch: this.#options.fetch,
      ...this.#options.retry,
    });
    return new HubSpotSession(client, credential, tokens);
  }
}

const noApp = () =>
  new CredentialInsufficient(
    'HubSpot OAuth is not configured here any more: connect with a private app token',
  );

interface TokenInfo {
  hub_id?: number;
  hubId?: number;
  hub_domain?: string;
  scopes?: string[];
}

class HubSpotSession implements ProviderSession {
  readonly #streams: MemberStreams;

  constructor(
    readonly client: HubSpotClient,
    readonly credential: OpenedCredential,
    readonly tokens: AccessTokens,
  ) {
    this.#streams = new MemberStreams(client);
  }

  /** The portal; refuses a token without the scopes a connection needs, naming them. */
  async account(): Promise<ProviderAccount> {
    const details = await this.client.get<{ portalId: number; dataHostingLocation?: string }>(
      '/account-info/v3/details',
    );
    const token = await this.tokens.current();
    const info =
      this.credential.kind === 'api_key'
        ? await this.client.post<TokenInfo>('/oauth/v2/private-apps/get/access-token-info', {
            tokenKey: token,
          })
        : await this.client.get<TokenInfo>(`/oauth/v1/access-tokens/${encodeURIComponent(token)}`);
    const missing = REQUIRED_SCOPES.filter((scope) => !(info.scopes ?? []).includes(scope));
    if (missing.length > 0)
      throw new CredentialInsufficient(
        `This HubSpot token lacks the scopes ${missing.join(', ')}: add them to the app`,
      );
    const portalId = String(details.portalId);
    return {
      id: portalId,
      name: info.hub_domain ? info.hub_domain : `HubSpot portal ${portalId}`,
      dc: details.dataHostingLocation ?? this.credential.dc,
    };
  }

  async audiences(): Promise<Audience[]> {
    const all = await this.client.post<{ total: number }>('/crm/v3/objects/contacts/search', {
      limit: 1,
      properties: ['email'],
    });
    const audiences: Audience[] = [{ id: ALL_CONTACTS, name: 'All contacts', memberCount: all.total }];
    for (let offset = 0; ; ) {
      const page = await this.client.post<{
        lists: Array<{ listId: string; name: string; additionalProperties?: { hs_list_size?: string } }>;
        hasMore: boolean;
        offset: number;
      }>('/crm/v3/lists/search', { count: 500, offset, objectTypeId: '0-1' });
      for (const list of page.lists)
        audiences.push({
          id: list.listId,
          name: list.name,
          memberCount: Number(list.additionalProperties?.hs_list_size ?? 0),
        });
      if (!page.hasMore || page.lists.length === 0) return audiences;
      offset = page.offset;
    }
  }

  members(audienceId: string, query: MemberQuery): Promise<MemberPage> {
    return this.#streams.page(audienceId, query);
  }

  prepareWriteBack(_audienceId: string, options: WriteBackOptions): Promise<void> {
    return prepareWriteBack(this.client, options);
  }

  submitWrites(
    _audienceId: string,
    results: readonly MemberResult[],
    options: WriteBackOptions,
  ): Promise<string> {
    return writeResults(this.client, results, options);
  }

  writeOutcome(jobId: string): Promise<WriteOutcome | null> {
    return Promise.resolve(outcomeOf(jobId) ?? { written: 0, errors: [] });
  }

  /** The contact with this address (by the search API, which keeps to its own limit). */
  async member(_audienceId: string, email: string): Promise<Member | null> {
    const found = await this.client.post<{ results: ContactRecord[] }>('/crm/v3/objects/contacts/search', {
      filterGroups: [
        { filters: [{ propertyName: 'email', operator: 'EQ', value: email.trim().toLowerCase() }] },
      ],
      properties: MEMBER_PROPERTIES,
      limit: 1,
    });
    const record = found.results[0];
    return record === undefined ? null : toMember(record);
  }

  memberById(audienceId: string, contactId: string): Promise<Member | null> {
    return watchedContact(this.client, audienceId, contactId);
  }

  createdMembers(audienceId: string, after: string, limit: number, before?: string) {
    return createdContacts(this.client, audienceId, after, limit, before);
  }

  async writeMember(_audienceId: string, result: MemberResult, options: WriteBackOptions): Promise<void> {
    const outcome = outcomeOf(await writeResults(this.client, [result], options));
    const refused = outcome?.errors[0];
    if (refused !== undefined) throw new Error(`HubSpot did not take the result: ${refused.message}`);
  }

  /**
   * Nothing is registered per portal: an app's events are configured once (`app-events`), a
   * private app is polled (`polling`). A list that is not there is HubSpot's 404.
   */
  async watch(audienceId: string): Promise<string> {
    if (audienceId !== ALL_CONTACTS) await this.client.get(`/crm/v3/lists/${encodeURIComponent(audienceId)}`);
    return this.credential.kind === 'oauth' ? APP_EVENTS : POLLING;
  }

  unwatch(): Promise<void> {
    return Promise.resolve();
  }

  draftCampaigns(): Promise<DraftCampaign[]> {
    return readDraftEmails(this.client);
  }

  campaign(campaignId: string): Promise<Campaign | null> {
    return readEmail(this.client, campaignId);
  }

  campaignRecipients(campaign: Campaign): AsyncIterable<Recipient[]> {
    return readEmailRecipients(this.client, campaign);
  }

  excludeFromCampaign(campaign: Campaign, exclusion: Exclusion): Promise<ExcludedSegment> {
    return excludeFromEmail(this.client, campaign, exclusion);
  }
}
