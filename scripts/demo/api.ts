/**
 * The demo seeds its server the way a newcomer would, through the public API: sign up (or sign in,
 * when a `--data-dir` of an earlier run already has the user), make a key, connect the Mailchimp
 * and HubSpot stand-ins, and verify the addresses to try with the key. The account is on the free plan, as
 * sign-up gives, so a 429 is waited out as its Retry-After says.
 */
import type { VerificationResult } from '../../src/verification/report.ts';

/** The demo user's sign-in. Fixed, so that a `--data-dir` kept from an earlier run signs in again. */
export const DEMO_CREDENTIALS = { email: 'demo@mailvet.test', password: 'try-mailvet-locally' } as const;

const SESSION_COOKIE = 'mailvet_session';
/** Requests refused for the rate are tried again this many times. */
const RATE_LIMIT_ATTEMPTS = 20;

interface Session {
  cookie: string;
  csrf: string;
}

/** A request's answer. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** A client of one server, signed in as the demo user once `signIn` ran. */
export class DemoApi {
  readonly #base: string;
  readonly #origin: string;
  #session: Session | undefined;

  constructor(url: string) {
    this.#origin = new URL(url).origin;
    this.#base = `${this.#origin}/api/v1`;
  }

  /** Signs up as the demo user, or signs in when the user exists. */
  async signIn(): Promise<void> {
    let response = await this.#send('POST', '/signup', {
      json: { ...DEMO_CREDENTIALS, account_name: 'Demo' },
    });
    if (response.status === 409) response = await this.#send('POST', '/session', { json: DEMO_CREDENTIALS });
    const body = (await expectStatus(response, response.status === 201 ? 201 : 200, 'sign-in')) as {
      csrf_token: string;
    };
    const cookie = response.headers
      .getSetCookie()
      .map((line) => line.split(';')[0]!)
      .find((pair) => pair.startsWith(`${SESSION_COOKIE}=`));
    if (cookie === undefined) throw new Error('sign-in set no session cookie');
    this.#session = { cookie, csrf: body.csrf_token };
  }

  /** A new API key; its secret is shown only in this answer. */
  async createKey(name: string): Promise<string> {
    const body = (await this.#expect('POST', '/keys', 201, { json: { name } })) as { key: string };
    return body.key;
  }

  /**
   * Connects `provider` (mailchimp, hubspot) with `apiKey`, first disconnecting the account's earlier
   * connections to it: on a kept data directory they point at a stand-in that stopped with its demo.
   */
  async connect(provider: string, apiKey: string): Promise<{ id: string; account_name: string }> {
    const { integrations } = (await this.#expect('GET', '/integrations', 200)) as {
      integrations: Array<{ id: string; provider: string }>;
    };
    for (const integration of integrations.filter((each) => each.provider === provider)) {
      await this.#expect('DELETE', `/integrations/${integration.id}`, 204);
    }
    return (await this.#expect('POST', '/integrations', 201, {
      json: { provider, api_key: apiKey },
    })) as { id: string; account_name: string };
  }

  /** POST /verify with an API key. */
  async verify(key: string, email: string): Promise<VerificationResult> {
    const response = await this.#send('POST', '/verify', { json: { email }, key });
    return (await expectStatus(response, 200, `verifying ${email}`)) as VerificationResult;
  }

  async #expect(
    method: string,
    path: string,
    status: number,
    options: { json?: unknown } = {},
  ): Promise<unknown> {
    return expectStatus(await this.#send(method, path, options), status, `${method} ${path}`);
  }

  /** One request, with the session (and its CSRF token on writes) or a key; a 429 is waited out. */
  async #send(method: string, path: string, options: { json?: unknown; key?: string }): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    else if (this.#session !== undefined) {
      headers.cookie = this.#session.cookie;
      if (method !== 'GET')
        Object.assign(headers, { 'x-csrf-token': this.#session.csrf, origin: this.#origin });
    }
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${this.#base}${path}`, {
        method,
        headers,
        ...(options.json !== undefined && { body: JSON.stringify(options.json) }),
      });
      if (response.status !== 429 || attempt >= RATE_LIMIT_ATTEMPTS) return response;
      const text = await response.text();
      // Only the rate is a matter of waiting; a spent quota is an answer.
      if (errorCode(text) !== 'rate_limited') return new Response(text, { status: 429 });
      const seconds = Number(response.headers.get('retry-after') ?? '1');
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
    }
  }
}

async function expectStatus(response: Response, status: number, what: string): Promise<unknown> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${what}: HTTP ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

/** The `code` of an error body, if it is one. */
function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { code?: string }).code;
  } catch {
    return undefined;
  }
}
