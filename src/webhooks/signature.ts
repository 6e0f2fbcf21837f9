/**
 * Webhook signatures (docs/webhooks.md). Each list with a webhook has its own secret, derived from
 * the server secret and shown once when the list is made: `whsec_` and 64 hex digits, which encode
 * the 32 bytes of the HMAC key. A delivery carries
 *
 *   Mailvet-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<raw body>")>
 *
 * The timestamp is signed with the body, so a captured delivery cannot be replayed later than the
 * receiver's tolerance. Several `v1` values may appear (while a secret is rotated, a delivery is
 * signed with the old and the new one); any one that matches is enough. The scheme follows
 * Stripe's, which receivers and their libraries already know.
 *
 * Pure: node:crypto only, so receivers' tests and the sender share exactly this code.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature. */
export const SIGNATURE_HEADER = 'Mailvet-Signature';
/** How far a timestamp may be from the receiver's clock, by default, seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const SECRET_PATTERN = /^whsec_[0-9a-f]{64}$/;
const V1_PATTERN = /^[0-9a-f]{64}$/;
// Unix seconds, 1 to 12 digits: a bound that keeps Number() exact and the HMAC input canonical.
const TIMESTAMP_PATTERN = /^[0-9]{1,12}$/;

/**
 * A signing key: a `whsec_…` string as the list's owner received it, or the key bytes it encodes;
 * or several of them, during a rotation.
 */
export type WebhookSecret = string | Uint8Array | ReadonlyArray<string | Uint8Array>;

/**
 * The webhook secret of one list, as its owner receives it. Derived (HKDF-SHA256 of the server
 * secret, info `webhook:<listId>`, the same as `deriveKey(serverSecret, 'webhook:' + listId)`), so
 * nothing is stored, every process computes the same one, and one list's secret tells nothing
 * about another's or about the server secret. Changing MAILVET_SECRET_KEY changes them all.
 */
export function webhookSecretFor(serverSecret: Uint8Array, listId: string): string {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, 'mailvet', `webhook:${listId}`, 32));
  return `${SECRET_PREFIX}${key.toString('hex')}`;
}

/**
 * The HMAC key a `whsec_…` string encodes (the bytes of its hex digits): what the sender signs
 * with and what the receiver must verify with.
 *
 * @throws TypeError when `secret` is not `whsec_` and 64 lower-case hex digits
 */
export function webhookSigningKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) {
    throw new TypeError('a webhook secret is "whsec_" and 64 lower-case hex digits');
  }
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'hex');
}

/**
 * The `Mailvet-Signature` header value for `body` (the exact bytes sent) at `timestampSeconds`:
 * one `v1` per secret given.
 *
 * @throws TypeError for a malformed secret or timestamp (a bug on the sending side)
 */
export function signWebhook(
  secret: WebhookSecret,
  body: string | Uint8Array,
  timestampSeconds: number,
): string {
  if (!Number.isSafeInteger(timestampSeconds) || !TIMESTAMP_PATTERN.test(String(timestampSeconds))) {
    throw new TypeError('the timestamp is whole unix seconds');
  }
  const signatures = keysOf(secret).map((key) => `v1=${hmac(key, String(timestampSeconds), body)}`);
  return `t=${timestampSeconds},${signatures.join(',')}`;
}

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now, seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock, unix seconds (default: now). */
  nowSeconds?: number;
}

/**
 * True when `header` holds a `t` within `toleranceSeconds` of now and a `v1` that is the signature
 * of `body` by one of the secrets. Comparisons are constant-time. Never throws, whatever the
 * header, body or secret (a malformed secret simply verifies nothing).
 */
export function verifyWebhook(
  secret: WebhookSecret,
  body: string | Uint8Array,
  header: unknown,
  options: VerifyOptions = {},
): boolean {
  try {
    if (typeof header !== 'string' || header.length > 8192) return false;
    const parsed = parseHeader(header);
    if (parsed === null) return false;
    const now = options.nowSeconds ?? Date.now() / 1000;
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!(Math.abs(now - Number(parsed.timestamp)) <= tolerance)) return false;
    const given = parsed.signatures.map((hex) => Buffer.from(hex, 'hex'));
    // Every key against every value, no early exit: the time taken says nothing about which matched.
    let matched = false;
    for (const key of keysOf(secret)) {
      const expected = Buffer.from(hmac(key, parsed.timestamp, body), 'hex');
      for (const signature of given) matched = timingSafeEqual(signature, expected) || matched;
    }
    return matched;
  } catch {
    return false;
  }
}

/** `t` and the `v1` values; null when there is no valid `t` or no valid `v1`. Unknown keys are skipped. */
function parseHeader(header: string): { timestamp: string; signatures: string[] } | null {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    if (name === 't') {
      // Two different timestamps make the header ambiguous: refuse it rather than pick one.
      if (!TIMESTAMP_PATTERN.test(value) || (timestamp !== undefined && timestamp !== value)) return null;
      timestamp = value;
    } else if (name === 'v1' && V1_PATTERN.test(value) && signatures.length < 16) {
      signatures.push(value);
    }
  }
  return timestamp === undefined || signatures.length === 0 ? null : { timestamp, signatures };
}

function keysOf(secret: WebhookSecret): Uint8Array[] {
  const list: ReadonlyArray<string | Uint8Array> =
    typeof secret === 'string' || secret instanceof Uint8Array ? [secret] : secret;
  if (list.length === 0) throw new TypeError('no webhook secret given');
  return list.map((one) => (typeof one === 'string' ? webhookSigningKey(one) : one));
}

function hmac(key: Uint8Array, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${timestamp}.`).update(body).digest('hex');
}
