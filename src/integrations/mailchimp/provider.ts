/**
 * Mailchimp as a provider (DESIGN §3.4): API keys are 32 hex digits and `-<data centre>`; a session
 * reads the account and its audiences through the typed client.
 */
import type {
  Audience,
  InFlightLimiter,
  OpenedCredential,
  Provider,
  ProviderAccount,
  ProviderSession,
} from '../ports.ts';
import { DATA_CENTRE, MailchimpClient } from './client.ts';
import { MailchimpOAuth } from './oauth.ts';

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
  readonly name = 'mailchimp' as const;
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
    return new MailchimpSession(client, credential.dc);
  }
}

interface RootAnswer {
  account_id: string;
  account_name: string;
}

interface ListsAnswer {
  lists: Array<{ id: string; name: string; stats?: { member_count?: number } }>;
  total_items: number;
}

class MailchimpSession implements ProviderSession {
  constructor(
    readonly client: MailchimpClient,
    readonly dc: string,
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
}
