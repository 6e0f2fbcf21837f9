/**
 * An emulator of the part of HubSpot's public API Mailvet uses, on 127.0.0.1, for the tests and
 * the bench: private-app tokens (`pat-na1-…`) and OAuth 2 (authorize, token with refresh,
 * access tokens of 30 minutes), CRM v3 contacts, properties, Lists v3, communication preferences,
 * marketing emails and account info (`routes.ts`), HubSpot's error body, cursor paging, the
 * rolling 10-second window per portal and the search API's own 4 a second, with their
 * `X-HubSpot-RateLimit-*` headers and 429 bodies. It records every request (count, peak in flight,
 * the most in any 10 seconds) and can answer bursts of 429 or 500 on demand. `sendEvents` posts
 * signed webhook events (X-HubSpot-Signature-v3) as HubSpot's app webhooks do.
 *
 * Not confirmed by HubSpot's documentation, so chosen here:
 * - which `X-HubSpot-RateLimit-*` headers each kind of app receives (sent here: `-Max`,
 *   `-Remaining`, `-Interval-Milliseconds` on every answer, `-Secondly*` on search);
 * - whether search requests also count against the 10-second window (they do here);
 * - the exact 207 body of a batch update naming missing ids (shape of batch read's errors here);
 * - a portal's display name: account info carries none, so the adapter names a portal by its
 *   `hub_domain` (from token info) or its id;
 * - OAuth error bodies (`{"status":"BAD_REFRESH_TOKEN","message"}` here, from community answers);
 * - the most addresses a batch `unsubscribe-all` takes (100 here, as other batch endpoints);
 * - which list filter operators a DYNAMIC list accepts on a number property (the emulator knows
 *   NUMBER filters with IS_GREATER_THAN_OR_EQUAL_TO, IS_LESS_THAN_OR_EQUAL_TO, IS_BETWEEN, IS_EQUAL_TO).
 *
 * Files: `state.ts` (the world), `routes.ts` with `contacts.ts`, `lists.ts`, `marketing.ts`
 * (the API), `oauth.ts` (tokens), `errors.ts` (HubSpot's error body).
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expired, HsError, unauthorized } from './errors.ts';
import { handleOAuth } from './oauth.ts';

export { ACCESS_TOKEN_SECONDS } from './oauth.ts';

import { dispatch } from './routes.ts';
import { ALL_SCOPES, newPortal, newTokenValue, newWorld, type Portal, type World } from './state.ts';

export const WINDOW_MS = 10_000;

export interface RecordedRequest {
  method: string;
  path: string;
  portalId: number | null;
  at: number;
  status: number;
}

export interface HubSpotEmulatorOptions {
  /** Requests a portal may make in any 10 seconds (HubSpot: 100, 190 for some private apps). */
  perTenSeconds?: number;
  /** Search requests a second (HubSpot: 4… 5 in newer pages; 4 here). */
  searchPerSecond?: number;
  /** The OAuth app (client id and secret) the emulator knows. */
  app?: { clientId: string; clientSecret: string };
  /** Milliseconds added to each answer. */
  latencyMs?: number;
}

export class HubSpotEmulator {
  readonly world: World = newWorld();
  readonly requests: RecordedRequest[] = [];
  inFlight = 0;
  peakInFlight = 0;
  /** The most requests one portal made in any 10-second window (by arrival). */
  peakWindow = 0;
  latencyMs: number;
  /** Clock of token expiry (tests move it forward). */
  now: () => number = Date.now;
  readonly #faults: number[] = [];
  readonly #arrivals = new Map<number, number[]>();
  readonly #searches = new Map<number, number[]>();
  readonly #options: Required<Omit<HubSpotEmulatorOptions, 'app'>> & Pick<HubSpotEmulatorOptions, 'app'>;
  #server: http.Server | null = null;

  /** The OAuth app the emulator knows, if any. */
  get app(): { clientId: string; clientSecret: string } | undefined {
    return this.#options.app;
  }
  origin = '';

  constructor(options: HubSpotEmulatorOptions = {}) {
    this.#options = { perTenSeconds: 100, searchPerSecond: 4, latencyMs: 0, ...options };
    this.latencyMs = this.#options.latencyMs;
  }

  async start(port = 0): Promise<this> {
    this.#server = http.createServer((request, response) => {
      void this.#handle(request, response);
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** A portal with a private app holding `scopes`; its token. */
  addPortal(portalId: number, hubDomain = `portal${portalId}.hubspot.test`, scopes = ALL_SCOPES) {
    const portal = newPortal(this.world, portalId, hubDomain);
    const token = newTokenValue('pat-na1-');
    this.world.tokens.set(token, {
      portalId,
      kind: 'private_app',
      scopes: [...scopes],
      expiresAt: null,
      revoked: false,
    });
    return { portal, token };
  }

  /** The next `count` API requests answer `status` (429 with HubSpot's rate-limit body, or a 5xx). */
  fail(count: number, status: 429 | 500 | 502 | 503): void {
    for (let i = 0; i < count; i++) this.#faults.push(status);
  }

  /** Revokes a token or refresh token (the app uninstalled, the private app's token rotated). */
  revoke(token: string): void {
    const access = this.world.tokens.get(token);
    if (access) access.revoked = true;
    const refresh = this.world.refreshTokens.get(token);
    if (refresh) refresh.revoked = true;
  }

  /** A one-time code for the consent of `portalId`'s user, as the authorize page would redirect with. */
  grant(portalId: number, redirectUri: string, scopes = ALL_SCOPES): string {
    const code = randomUUID();
    this.world.codes.set(code, { portalId, scopes: [...scopes], redirectUri });
    return code;
  }

  portal(portalId: number): Portal {
    const portal = this.world.portals.get(portalId);
    if (portal === undefined) throw new Error(`no portal ${portalId}`);
    return portal;
  }

  /**
   * A GDPR delete, as a HubSpot user performs it: the contact is gone for good (not archived, not
   * readable), out of every list. HubSpot then sends `contact.privacyDeletion` (tests post it).
   */
  privacyDelete(portalId: number, contactId: string): void {
    const portal = this.portal(portalId);
    portal.contacts.delete(contactId);
    for (const list of portal.lists.values()) list.members.delete(contactId);
  }

  /** Requests whose path starts with `prefix` (and method, when given). */
  count(prefix: string, method?: string): number {
    return this.requests.filter(
      (r) => r.path.startsWith(prefix) && (method === undefined || r.method === method),
    ).length;
  }

  /**
   * Posts `events` to `url` as HubSpot's app webhooks do: a JSON array, signed v3 under `secret`
   * (method + URI + body + timestamp). `timestamp` and `signature` may be forged by tests.
   */
  async sendEvents(
    url: string,
    events: Array<Record<string, unknown>>,
    secret: string,
    overrides: { timestamp?: number; signature?: string } = {},
  ): Promise<Response> {
    const body = JSON.stringify(events);
    const timestamp = String(overrides.timestamp ?? Date.now());
    const signature =
      overrides.signature ??
      createHmac('sha256', secret).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hubspot-signature-v3': signature,
        'x-hubspot-request-timestamp': timestamp,
      },
      body,
    });
  }

  async #handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<unknown> {
    // HubSpot counts a request when it arrives, not when its body has been read.
    const arrivedAt = Date.now();
    const url = new URL(request.url ?? '/', 'http://emulator');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const record: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      portalId: null,
      at: Date.now(),
      status: 0,
    };
    this.requests.push(record);
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): true => {
      record.status = status;
      response.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
      response.end(body === undefined ? '' : JSON.stringify(body));
      return true;
    };
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      if (url.pathname.startsWith('/oauth/')) return handleOAuth(this, request, url, text, send, response);
      const auth = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const token = auth === undefined ? undefined : this.world.tokens.get(auth);
      if (token === undefined || token.revoked) throw unauthorized();
      if (token.expiresAt !== null && token.expiresAt <= this.now()) throw expired();
      record.portalId = token.portalId;
      const portal = this.portal(token.portalId);
      const limits = this.#admit(
        arrivedAt,
        token.portalId,
        url.pathname.endsWith('/search') && url.pathname.startsWith('/crm/v3/objects'),
      );
      if (limits.refused !== null) return send(429, limits.refused, limits.headers);
      const fault = this.#faults.shift();
      if (fault === 429) {
        return send(429, rateLimited('TEN_SECONDLY_ROLLING'), {
          ...limits.headers,
          'x-hubspot-ratelimit-remaining': '0',
        });
      }
      if (fault !== undefined) {
        return send(fault, {
          status: 'error',
          message: 'internal error',
          correlationId: randomUUID(),
          category: 'INTERNAL_ERROR',
        });
      }
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        throw new HsError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1');
      }
      const answer = dispatch(
        { portal, token, now: () => new Date(this.now()) },
        { method: record.method, path: url.pathname, query: url.searchParams, body },
      );
      send(answer.status, answer.body, limits.headers);
    } catch (error) {
      if (error instanceof HsError) send(error.status, error.body());
      else
        send(500, {
          status: 'error',
          message: String(error),
          correlationId: randomUUID(),
          category: 'INTERNAL_ERROR',
        });
    } finally {
      this.inFlight -= 1;
    }
  }

  /** HubSpot's window: `perTenSeconds` per portal by arrival, and the search API's per second. */
  #admit(now: number, portalId: number, search: boolean) {
    const arrivals = (this.#arrivals.get(portalId) ?? []).filter((at) => at > now - WINDOW_MS);
    const max = this.#options.perTenSeconds;
    const headers: Record<string, string> = {
      'x-hubspot-ratelimit-interval-milliseconds': String(WINDOW_MS),
      'x-hubspot-ratelimit-max': String(max),
    };
    if (arrivals.length >= max) {
      this.#arrivals.set(portalId, arrivals);
      return {
        refused: rateLimited('TEN_SECONDLY_ROLLING'),
        headers: { ...headers, 'x-hubspot-ratelimit-remaining': '0' },
      };
    }
    if (search) {
      const searches = (this.#searches.get(portalId) ?? []).filter((at) => at > now - 1000);
      if (searches.length >= this.#options.searchPerSecond) {
        this.#searches.set(portalId, searches);
        return {
          refused: rateLimited('SECONDLY'),
          headers: {
            ...headers,
            'x-hubspot-ratelimit-secondly': String(this.#options.searchPerSecond),
            'x-hubspot-ratelimit-secondly-remaining': '0',
          },
        };
      }
      searches.push(now);
      this.#searches.set(portalId, searches);
    }
    arrivals.push(now);
    this.#arrivals.set(portalId, arrivals);
    this.peakWindow = Math.max(this.peakWindow, arrivals.length);
    headers['x-hubspot-ratelimit-remaining'] = String(max - arrivals.length);
    return { refused: null, headers };
  }
}

function rateLimited(policyName: 'TEN_SECONDLY_ROLLING' | 'SECONDLY') {
  return {
    status: 'error',
    message: `You have reached your ${policyName === 'SECONDLY' ? 'secondly' : 'ten_secondly_rolling'} limit.`,
    errorType: 'RATE_LIMIT',
    correlationId: randomUUID(),
    policyName,
    groupName: 'api',
  };
}

/** Starts an emulator on a free loopback port. */
export function startHubSpotEmulator(options: HubSpotEmulatorOptions = {}): Promise<HubSpotEmulator> {
  return new HubSpotEmulator(options).start();
}
