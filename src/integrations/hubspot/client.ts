/**
 * A small typed client of HubSpot's public API over `fetch`. Chosen over `@hubspot/api-client`:
 * that package is typed but heavy (every HubSpot API generated, several MB installed), retries
 * through its own Bottleneck-based limiter with no per-portal window shared across processes, and
 * its base path is set per generated API class; Mailvet needs a dozen endpoints, one base URL
 * (MAILVET_HUBSPOT_BASE_URL, the emulator) and its own limits.
 *
 * Every request holds one of the portal's 5 slots in flight and a place in its rolling 10-second
 * window (across processes when the limiter and the window are Redis's); searches also keep to
 * the search API's 4 a second. 429, 5xx and network failures are retried with exponential backoff
 * and full jitter (HubSpot sends no `Retry-After`; a 429's wait is bounded by the window its
 * headers name). A 401 refreshes an OAuth token once; otherwise it is `ProviderAuthError`.
 */
import {
  type InFlightLimiter,
  ProviderAuthError,
  ProviderError,
  ProviderScopeMissing,
  type RequestWindow,
} from '../ports.ts';
import type { AccessTokens } from './tokens.ts';

export const HUBSPOT_MAX_IN_FLIGHT = 5;
export const WINDOW_MS = 10_000;
/** Search requests a second per token (HubSpot's CRM search limit). */
export const SEARCHES_PER_SECOND = 4;
/**
 * A request reserved at one instant arrives at HubSpot a little later, and not always equally
 * later (a busy event loop, a slow network; half a second was seen on a loaded test machine): a
 * second of slack on each window keeps two requests a window apart here a window apart there.
 */
const SLACK_MS = 1000;
/** The search API's second gets a quarter of a second: a second more would halve its rate. */
const SEARCH_SLACK_MS = 250;

/** HubSpot's error body. */
export interface HubSpotProblem {
  status?: string;
  message?: string;
  correlationId?: string;
  category?: string;
  policyName?: string;
  errors?: Array<{ message?: string; context?: Record<string, unknown> }>;
}

/** A request HubSpot refused (4xx other than 401 and 429), or that failed after every attempt. */
export class HubSpotError extends ProviderError {
  constructor(
    status: number | null,
    readonly problem: HubSpotProblem,
    message: string,
  ) {
    super(message, status);
    this.name = 'HubSpotError';
  }
}

export interface HubSpotClientOptions {
  /** MAILVET_HUBSPOT_BASE_URL (`https://api.hubapi.com`). */
  baseUrl: string;
  tokens: AccessTokens;
  inFlight: InFlightLimiter;
  window: RequestWindow;
  /** The key of the rolling window (the credential's). */
  limiterKey: string;
  /** The key of the in-flight limit (the portal's); the window's when absent. */
  inFlightKey?: string;
  /** Requests per rolling 10 seconds (MAILVET_HUBSPOT_REQUESTS_PER_10S). */
  perTenSeconds: number;
  fetch: typeof fetch;
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export type Query = Record<string, string | number | boolean | undefined>;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Attempt =
  | { kind: 'ok'; status: number; value: unknown }
  | { kind: 'fail'; error: ProviderError }
  | { kind: 'refused'; token: string; problem: HubSpotProblem }
  | { kind: 'retry'; status: number | null; problem: HubSpotProblem; message: string; boundMs?: number };

export class HubSpotClient {
  readonly #o: Required<Omit<HubSpotClientOptions, 'inFlightKey'>>;
  readonly #inFlightKey: string;
  readonly #base: string;

  constructor(options: HubSpotClientOptions) {
    this.#o = {
      attempts: 6,
      baseDelayMs: 500,
      maxDelayMs: 20_000,
      timeoutMs: 30_000,
      sleep: sleepFor,
      random: Math.random,
      ...options,
    };
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#inFlightKey = options.inFlightKey ?? options.limiterKey;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  /** One call within the portal's limits, retried as above; the parsed JSON (undefined when empty). */
  async request<T>(method: string, path: string, options: { query?: Query; body?: unknown }): Promise<T> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const search = method === 'POST' && /^\/crm\/v3\/objects\/[^/]+\/search$/.test(path);
    let refreshed = false;
    let last: Extract<Attempt, { kind: 'retry' }> | undefined;
    for (let attempt = 1; attempt <= this.#o.attempts; ) {
      const outcome = await this.#attempt(method, url, options.body, search);
      if (outcome.kind === 'ok') return outcome.value as T;
      if (outcome.kind === 'fail') throw outcome.error;
      if (outcome.kind === 'refused') {
        const fresh = refreshed ? null : await this.#o.tokens.afterRefusal(outcome.token);
        if (fresh === null) throw authError(outcome.problem);
        refreshed = true;
        continue;
      }
      last = outcome;
      if (attempt < this.#o.attempts) await this.#o.sleep(this.#delay(attempt, outcome.boundMs));
      attempt += 1;
    }
    throw new HubSpotError(
      last!.status,
      last!.problem,
      `HubSpot: ${last!.message} (after ${this.#o.attempts} attempts)`,
    );
  }

  #delay(attempt: number, boundMs: number | undefined): number {
    const ceiling = Math.min(
      boundMs ?? this.#o.maxDelayMs,
      this.#o.maxDelayMs,
      this.#o.baseDelayMs * 2 ** (attempt - 1),
    );
    // Full jitter: the retries of many callers spread over the whole interval.
    return Math.floor(this.#o.random() * ceiling);
  }

  /** Waits for a place in the window (and the search API's second), then takes it. */
  async #admit(search: boolean): Promise<void> {
    const { limiterKey, perTenSeconds } = this.#o;
    for (;;) {
      const wait = await this.#o.window.reserve(limiterKey, perTenSeconds, WINDOW_MS + SLACK_MS);
      if (wait === 0) break;
      await this.#o.sleep(wait);
    }
    if (!search) return;
    for (;;) {
      const wait = await this.#o.window.reserve(
        `${limiterKey}:search`,
        SEARCHES_PER_SECOND,
        1000 + SEARCH_SLACK_MS,
      );
      if (wait === 0) return;
      await this.#o.sleep(wait);
    }
  }

  async #attempt(method: string, url: URL, body: unknown, search: boolean): Promise<Attempt> {
    let release: () => void;
    try {
      release = await this.#o.inFlight.acquire(this.#inFlightKey, HUBSPOT_MAX_IN_FLIGHT);
    } catch (error) {
      return {
        kind: 'retry',
        status: null,
        problem: {},
        message: `${method} ${url.pathname} not sent (${String(error)})`,
      };
    }
    let response: Response;
    let text: string;
    let token: string;
    try {
      // The window is taken with the slot held, so the instant counted is the instant sent.
      await this.#admit(search);
      token = await this.#o.tokens.current();
      response = await this.#o.fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof ProviderError) return { kind: 'fail', error };
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return {
        kind: 'retry',
        status: null,
        problem: {},
        message: `${method} ${url.pathname} failed (${message})`,
      };
    } finally {
      release();
    }
    const parsed = parseJson(text);
    if (response.ok) {
      if (text === '') return { kind: 'ok', status: response.status, value: undefined };
      if (parsed === undefined)
        return {
          kind: 'fail',
          error: new HubSpotError(
            response.status,
            {},
            `HubSpot: ${method} ${url.pathname} answered something other than JSON`,
          ),
        };
      return { kind: 'ok', status: response.status, value: parsed };
    }
    const problem = (
      typeof parsed === 'object' && parsed !== null ? parsed : { message: text.slice(0, 200) }
    ) as HubSpotProblem;
    const message = `${method} ${url.pathname} answered ${response.status}${problem.message ? `: ${problem.message}` : ''}`;
    if (response.status === 401) return { kind: 'refused', token, problem };
    if (response.status === 429) {
      const interval = Number(response.headers.get('x-hubspot-ratelimit-interval-milliseconds'));
      const bound =
        problem.policyName === 'SECONDLY'
          ? 1000
          : Number.isFinite(interval) && interval > 0
            ? interval
            : WINDOW_MS;
      return { kind: 'retry', status: 429, problem, message, boundMs: bound };
    }
    if (response.status >= 500) return { kind: 'retry', status: response.status, problem, message };
    if (response.status === 403 && problem.category === 'MISSING_SCOPES') {
      const scopes = missingScopes(problem);
      const named = scopes.length > 0 ? scopes.join(', ') : 'a scope this needs';
      return {
        kind: 'fail',
        error: new ProviderScopeMissing(
          `HubSpot: this connection was not granted ${named} (needed for ${method} ${url.pathname})`,
          scopes,
        ),
      };
    }
    return { kind: 'fail', error: new HubSpotError(response.status, problem, `HubSpot: ${message}`) };
  }
}

/** The scopes a 403 MISSING_SCOPES names (`errors[].context.requiredGranularScopes`, or `requiredScopes`). */
function missingScopes(problem: HubSpotProblem): string[] {
  const scopes = new Set<string>();
  for (const error of problem.errors ?? []) {
    for (const name of ['requiredGranularScopes', 'requiredScopes']) {
      const listed = error.context?.[name];
      if (Array.isArray(listed)) for (const scope of listed) if (typeof scope === 'string') scopes.add(scope);
    }
  }
  return [...scopes];
}

function authError(problem: HubSpotProblem): ProviderAuthError {
  return new ProviderAuthError(`HubSpot refused the credentials: ${problem.message ?? 'unauthorized'}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
