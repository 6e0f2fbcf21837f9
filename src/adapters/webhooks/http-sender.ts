/**
 * POSTs one signed webhook event (docs/webhooks.md). Expected failures are values with a retry
 * hint, never throws: network errors, timeouts, 408, 429 and 5xx are worth another attempt; 3xx
 * (redirects are not followed: the target was checked, a Location header was not) and other 4xx
 * (the receiver refuses this request, and will refuse it again) are not.
 *
 * The receiver is checked like an MX host: a service that POSTs wherever a user's URL
 * points is an SSRF tool otherwise, so loopback, private, link-local and reserved addresses are
 * refused unless allowed. The connection goes to exactly the address checked (a pinned `lookup`),
 * so a DNS answer that changes between the check and the connect (rebinding) cannot slip past.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { signWebhook, type WebhookSecret } from '../../webhooks/signature.ts';
import {
  literalAddress,
  type ResolvedAddress,
  type ResolveHost,
  receiverHost,
  refusalsOf,
  systemResolve,
  usableAddress,
} from './receiver-address.ts';

export type { ResolvedAddress } from './receiver-address.ts';

/** Sent as `User-Agent`, so receivers can tell our requests in their logs and firewalls. */
export const WEBHOOK_USER_AGENT = 'Mailvet-Webhook/1';
/** Response bytes read at most; the body is only used for a short excerpt in the failure reason. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  /** The JSON body, sent as is: the same bytes on every attempt (the signature is fresh each time). */
  body: string;
  /** Sent as `Mailvet-Delivery`: receivers deduplicate by it. */
  deliveryId: string;
  /** Sent as `Mailvet-Event`, e.g. `list.completed`. */
  event: string;
  /** The list's `whsec_…` secret (or its key bytes; several while rotating). */
  secret: WebhookSecret;
  /** Bound on the whole attempt: DNS, connect, request and response, ms. */
  timeoutMs: number;
  /** Allow receivers on loopback, private and reserved addresses (MAILVET_WEBHOOK_ALLOW_PRIVATE, tests). */
  allowPrivate: boolean;
  /** The clock of the signature's timestamp. */
  now?: () => Date;
  /** Resolves the URL's host name; `dns.lookup` (all addresses) by default, which honours /etc/hosts. */
  resolve?: ResolveHost;
}

/** What one attempt came to: 2xx is delivered; otherwise why, and whether trying again may help. */
export type DeliveryOutcome =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; reason: string; status?: number };

/** Sends the event once; resolves with what happened, never rejects. */
export async function sendWebhook(request: WebhookRequest): Promise<DeliveryOutcome> {
  const started = Date.now();
  const url = parseTarget(request.url);
  if (typeof url === 'string') return { ok: false, retry: false, reason: url };
  const target = await withTimeout(pickAddress(url, request), request.timeoutMs);
  if (target === 'timeout') return timedOut(request.timeoutMs);
  if ('ok' in target) return target;
  let signature: string;
  try {
    const seconds = Math.floor((request.now?.() ?? new Date()).getTime() / 1000);
    signature = signWebhook(request.secret, request.body, seconds);
  } catch (error) {
    return { ok: false, retry: false, reason: `cannot sign: ${(error as Error).message}` };
  }
  const remainingMs = Math.max(1, request.timeoutMs - (Date.now() - started));
  return post(url, target, request, signature, remainingMs);
}

/** The URL, or why it cannot be sent to. */
function parseTarget(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'the webhook URL is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the webhook URL is not http or https';
  // Node would send them as Basic credentials; URLs are shown in list views and logs (see webhook-url.ts).
  if (url.username !== '' || url.password !== '') return 'the webhook URL has a user name or password';
  return url;
}

/** The one address to connect to, checked; or the outcome when there is none. */
async function pickAddress(url: URL, request: WebhookRequest): Promise<ResolvedAddress | DeliveryOutcome> {
  const host = receiverHost(url);
  let addresses = literalAddress(host);
  if (addresses === null) {
    try {
      addresses = await (request.resolve ?? systemResolve)(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return { ok: false, retry: true, reason: `cannot resolve ${host}: ${code}` };
    }
  }
  const usable = usableAddress(addresses, request.allowPrivate);
  if (usable !== undefined) return usable;
  if (addresses.length === 0) return { ok: false, retry: true, reason: `cannot resolve ${host}: no address` };
  return {
    ok: false,
    retry: false,
    reason: `refused: ${host} has no public address (${refusalsOf(addresses)})`,
  };
}

function post(
  url: URL,
  target: ResolvedAddress,
  request: WebhookRequest,
  signature: string,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  // The pinned lookup: Node 20 asks with `all: true` (happy eyeballs) or without; both get the checked address.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve) => {
    let status: number | undefined;
    let settled = false;
    let excerpt = '';
    const finish = (outcome: DeliveryOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outgoing?.destroy();
      resolve(outcome);
    };
    // One deadline for the whole exchange (socket timeouts only see idleness, not a slow trickle).
    const deadline = setTimeout(
      () => finish(status === undefined ? timedOut(request.timeoutMs) : outcomeOf(status, excerpt)),
      timeoutMs,
    );
    let outgoing: http.ClientRequest | undefined;
    try {
      outgoing = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        lookup: pinned,
        // A fresh connection each time: a pooled socket would skip the pinned lookup's decision.
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(request.body),
          'User-Agent': WEBHOOK_USER_AGENT,
          'Mailvet-Signature': signature,
          'Mailvet-Delivery': request.deliveryId,
          'Mailvet-Event': request.event,
        },
      });
    } catch (error) {
      // Invalid header characters in the id or event: a bug that another attempt would repeat.
      finish({ ok: false, retry: false, reason: `cannot send: ${(error as Error).message}` });
      return;
    }
    outgoing.on('response', (response) => {
      status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        if (excerpt.length < 200) excerpt += chunk.subarray(0, 200).toString('utf8');
        read += chunk.length;
        // Enough: the rest is discarded unread, and the connection closed, rather than buffered.
        if (read >= MAX_RESPONSE_BYTES) finish(outcomeOf(status ?? 0, excerpt));
      });
      const done = () => finish(outcomeOf(status ?? 0, excerpt));
      response.on('end', done);
      response.on('error', done);
      response.on('close', done);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, retry: true, reason: `request failed: ${error.code ?? error.message}` });
    });
    outgoing.end(request.body);
  });
}

/** Retry on 408, 429 and 5xx; 2xx is delivered; anything else (3xx, other 4xx) is final. */
function outcomeOf(status: number, excerpt: string): DeliveryOutcome {
  if (status >= 200 && status <= 299) return { ok: true, status };
  const retry = status === 408 || status === 429 || (status >= 500 && status <= 599);
  const redirect = status >= 300 && status <= 399 ? ' (redirects are not followed)' : '';
  const said = excerpt
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, 200);
  return { ok: false, retry, status, reason: `HTTP ${status}${redirect}${said === '' ? '' : `: ${said}`}` };
}

function timedOut(timeoutMs: number): DeliveryOutcome {
  return { ok: false, retry: true, reason: `timeout: no answer within ${timeoutMs} ms` };
}

/** `work`, or 'timeout' when it takes longer than `ms` (the work itself runs on; DNS cannot be cancelled). */
async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([work, expiry]);
  } finally {
    clearTimeout(timer);
  }
}
