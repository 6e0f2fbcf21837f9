/**
 * A small typed client of Mailchimp's Marketing API v3 over `fetch`. Chosen over the official
 * `@mailchimp/mailchimp_marketing` package: that one is untyped, builds its base URL from the
 * key's data centre with no way to point it elsewhere (MAILVET_MAILCHIMP_BASE_URL, the emulator),
 * and would still need our own limits and retries around it.
 *
 * Every request holds one of the account's 10 slots (Mailchimp answers 429 past 10 connections
 * in flight), across processes when the limiter is Redis's. 429, 5xx and network failures are
 * retried with exponential backoff and full jitter, waiting at least what `Retry-After` says; a
 * 401 is never retried: the key was revoked or the app disconnected (`MailchimpAuthError`).
 */
import { type InFlightLimiter, ProviderAuthError, ProviderError } from '../ports.ts';

/** Mailchimp's limit of simultaneous connections per account. */
export const MAILCHIMP_MAX_IN_FLIGHT = 10;

/** How a request is authenticated: an API key (HTTP Basic) or an OAuth access token (Bearer). */
export type MailchimpCredential =
  | { kind: 'api_key'; apiKey: string; dc: string }
  | { kind: 'oauth'; accessToken: string; dc: string };

export interface MailchimpClientOptions {
  credential: MailchimpCredential;
  /** `https://{dc}.api.mailchimp.com` (MAILVET_MAILCHIMP_BASE_URL); `/3.0` is appended. */
  baseUrlTemplate: string;
  limiter: InFlightLimiter;
  /** The limiter's key: one Mailchimp account (its data centre and id, or the integration's id). */
  limiterKey: string;
  fetch: typeof fetch;
  /** Attempts per request in all (default 6). */
  attempts?: number;
  /** First backoff, ms (default 500); doubles per attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Bound on one attempt, ms (default 30 s). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Mailchimp's problem document (application/problem+json). */
export interface MailchimpProblem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: Array<{ field?: string; message?: string }>;
}

/** A request Mailchimp refused (4xx other than 401 and 429), or that failed after every attempt. */
export class MailchimpError extends ProviderError {
  constructor(
    status: number | null,
    readonly problem: MailchimpProblem,
    message: string,
  ) {
    super(message, status);
    this.name = 'MailchimpError';
  }
}

/** 401: the key was revoked, or the OAuth app disconnected. Nothing will work until reconnected. */
export class MailchimpAuthError extends ProviderAuthError {
  constructor(readonly problem: MailchimpProblem) {
    super(`Mailchimp refused the credentials: ${problem.detail ?? problem.title ?? 'unauthorized'}`);
    this.name = 'MailchimpAuthError';
  }
}

/** A data centre as Mailchimp names them (`us21`): also what keeps a key's suffix out of the URL's host. */
export const DATA_CENTRE = /^[a-z]{2,4}[0-9]{1,3}$/;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type Query = Record<string, string | number | boolean | undefined>;

export class MailchimpClient {
  readonly #options: Required<Omit<MailchimpClientOptions, 'credential'>> & {
    credential: MailchimpCredential;
  };
  readonly #base: string;
  readonly #authorization: string;

  constructor(options: MailchimpClientOptions) {
    if (!DATA_CENTRE.test(options.credential.dc))
      throw new RangeError(`not a Mailchimp data centre: ${options.credential.dc}`);
    this.#options = {
      attempts: 6,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      timeoutMs: 30_000,
      sleep: sleepFor,
      random: Math.random,
      ...options,
    };
    this.#base = `${options.baseUrlTemplate.replace('{dc}', options.credential.dc).replace(/\/+$/, '')}/3.0`;
    const { credential } = options;
    this.#authorization =
      credential.kind === 'api_key'
        ? `Basic ${Buffer.from(`mailvet:${credential.apiKey}`).toString('base64')}`
        : `Bearer ${credential.accessToken}`;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }

  /**
   * Creates something at most once: when an attempt's answer is lost (a 5xx, or a failure after
   * the request went out) the creation may have happened, so `exists` is asked before trying again.
   * Resolves when it was created, by this call or by an attempt whose answer was lost.
   */
  async create(path: string, body: unknown, exists: () => Promise<boolean>): Promise<void> {
    await this.request('POST', path, { body, done: exists });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  delete(path: string): Promise<void> {
    return this.request<void>('DELETE', path, {});
  }

  /**
   * One API call with the account's slot held, retried as the header says; the parsed JSON
   * (undefined for 204). With `done`, an attempt that may have been carried out is not repeated
   * when `done` says its effect is there (the answer is then undefined).
   */
  async request<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; done?: () => Promise<boolean> },
  ): Promise<T> {
    const url = new URL(`${this.#base}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const { attempts } = this.#options;
    let lastProblem: { status: number | null; problem: MailchimpProblem; message: string } | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const outcome = await this.#attempt(method, url, options.body);
      if (outcome.kind === 'ok') return outcome.value as T;
      if (outcome.kind === 'fail') throw outcome.error;
      lastProblem = outcome;
      if (attempt < attempts) await this.#options.sleep(this.#delay(attempt, outcome.retryAfterMs));
      if (outcome.maybeDone && options.done !== undefined && (await options.done())) return undefined as T;
    }
    const last = lastProblem!;
    throw new MailchimpError(
      last.status,
      last.problem,
      `Mailchimp: ${last.message} (after ${attempts} attempts)`,
    );
  }

  #delay(attempt: number, retryAfterMs: number | undefined): number {
    const ceiling = Math.min(this.#options.maxDelayMs, this.#options.baseDelayMs * 2 ** (attempt - 1));
    // Full jitter: spread the retries of many callers over the whole window.
    const jittered = Math.floor(this.#options.random() * ceiling);
    return Math.max(jittered, retryAfterMs ?? 0);
  }

  async #attempt(
    method: string,
    url: URL,
    body: unknown,
  ): Promise<
    | { kind: 'ok'; value: unknown }
    | { kind: 'fail'; error: MailchimpError }
    | {
        kind: 'retry';
        status: number | null;
        problem: MailchimpProblem;
        message: string;
        retryAfterMs?: number;
        /** The request went out and may have been carried out (its answer lost, or a 5xx). */
        maybeDone: boolean;
      }
  > {
    let release: () => void;
    try {
      release = await this.#options.limiter.acquire(this.#options.limiterKey, MAILCHIMP_MAX_IN_FLIGHT);
    } catch (error) {
      // No slot in time, or the limiter's Redis failed: nothing was sent, so trying again is safe.
      const message = error instanceof Error ? error.message : String(error);
      return {
        kind: 'retry',
        status: null,
        problem: {},
        message: `${method} ${url.pathname} not sent (${message})`,
        maybeDone: false,
      };
    }
    let response: Response;
    let text: string;
    try {
      response = await this.#options.fetch(url, {
        method,
        headers: {
          authorization: this.#authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return {
        kind: 'retry',
        status: null,
        problem: {},
        message: `${method} ${url.pathname} failed (${message})`,
        maybeDone: true,
      };
    } finally {
      release();
    }
    if (response.ok) {
      if (text === '') return { kind: 'ok', value: undefined };
      try {
        return { kind: 'ok', value: JSON.parse(text) };
      } catch {
        const detail = `${method} ${url.pathname} answered ${response.status} with something other than JSON`;
        return { kind: 'fail', error: new MailchimpError(response.status, {}, `Mailchimp: ${detail}`) };
      }
    }
    const problem = parseProblem(text);
    const message =
      `${method} ${url.pathname} answered ${response.status} ${problem.title ?? ''}${problem.detail ? `: ${problem.detail}` : ''}`.trim();
    if (response.status === 401) return { kind: 'fail', error: new MailchimpAuthError(problem) };
    if (response.status === 429 || response.status >= 500) {
      return {
        kind: 'retry',
        status: response.status,
        problem,
        message,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
        // A 429 was refused before any work; a 5xx may come from a proxy after the work was done.
        maybeDone: response.status !== 429,
      };
    }
    return { kind: 'fail', error: new MailchimpError(response.status, problem, `Mailchimp: ${message}`) };
  }
}

function parseProblem(text: string): MailchimpProblem {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as MailchimpProblem) : {};
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

/** `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. Capped at 5 minutes. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), 300_000);
}
