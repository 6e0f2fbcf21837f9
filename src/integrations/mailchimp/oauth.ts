/**
 * Mailchimp's OAuth 2 web flow (login.mailchimp.com, MAILVET_MAILCHIMP_LOGIN_URL): the consent
 * page, the code-for-token exchange, then the metadata endpoint for the account's data centre
 * (Mailchimp's tokens do not expire and carry no data centre of their own).
 */
import { ProviderAuthError, ProviderError, type ProviderOAuth } from '../ports.ts';
import { DATA_CENTRE } from './client.ts';

export interface MailchimpOAuthOptions {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** `fetch` behind the SSRF guard. */
  fetch: typeof fetch;
  timeoutMs?: number;
}

export class MailchimpOAuth implements ProviderOAuth {
  readonly #options: MailchimpOAuthOptions;
  readonly #base: string;

  constructor(options: MailchimpOAuthOptions) {
    this.#options = options;
    this.#base = `${options.loginUrl.replace(/\/+$/, '')}/oauth2`;
  }

  authorizeUrl(redirectUri: string, state: string): string {
    const url = new URL(`${this.#base}/authorize`);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.#options.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  }

  async exchange(code: string, redirectUri: string): Promise<{ accessToken: string; dc: string }> {
    const token = await this.#call<{ access_token?: unknown }>('token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: this.#options.clientId,
        client_secret: this.#options.clientSecret,
        redirect_uri: redirectUri,
        code,
      }).toString(),
    });
    if (typeof token.access_token !== 'string' || token.access_token === '') {
      throw new ProviderError('Mailchimp gave no access token', null);
    }
    const metadata = await this.#call<{ dc?: unknown }>('metadata', {
      method: 'GET',
      headers: { authorization: `OAuth ${token.access_token}`, accept: 'application/json' },
    });
    // The data centre goes into the API's host name: only Mailchimp's own shape of it.
    if (typeof metadata.dc !== 'string' || !DATA_CENTRE.test(metadata.dc)) {
      throw new ProviderError('Mailchimp named no valid data centre for the account', null);
    }
    return { accessToken: token.access_token, dc: metadata.dc };
  }

  async #call<T>(endpoint: string, init: RequestInit): Promise<T> {
    let response: Response;
    let text: string;
    try {
      response = await this.#options.fetch(`${this.#base}/${endpoint}`, {
        ...init,
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 15_000),
      });
      text = await response.text();
    } catch (error) {
      throw new ProviderError(`Mailchimp's OAuth ${endpoint} did not answer (${String(error)})`, null);
    }
    if (response.status === 400 || response.status === 401) {
      // A used or forged code, or an app whose secret changed: the person starts again.
      throw new ProviderAuthError(`Mailchimp refused the authorization (${endpoint}: ${response.status})`);
    }
    if (!response.ok)
      throw new ProviderError(`Mailchimp's OAuth ${endpoint} answered ${response.status}`, response.status);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ProviderError(
        `Mailchimp's OAuth ${endpoint} answered something other than JSON`,
        response.status,
      );
    }
  }
}
