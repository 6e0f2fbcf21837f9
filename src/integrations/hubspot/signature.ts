/**
 * HubSpot's v3 request signature (X-HubSpot-Signature-v3): base64 of HMAC-SHA256, under the app's
 * client secret, of method + URI + body + X-HubSpot-Request-Timestamp; a timestamp older than 5
 * minutes is refused so a captured request cannot be replayed later. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_MAX_AGE_MS = 5 * 60_000;

export interface SignedRequest {
  method: string;
  /** The full URL HubSpot called (`MAILVET_PUBLIC_URL/hooks/hubspot`), query included. */
  uri: string;
  body: string;
  signature: string | undefined;
  timestamp: string | undefined;
}

/** Whether HubSpot signed this request with `clientSecret`, within the last 5 minutes. */
export function signedByHubSpot(request: SignedRequest, clientSecret: string, now = Date.now()): boolean {
  const { signature, timestamp } = request;
  if (signature === undefined || timestamp === undefined || !/^\d{1,16}$/.test(timestamp)) return false;
  const age = now - Number(timestamp);
  if (age > SIGNATURE_MAX_AGE_MS || age < -SIGNATURE_MAX_AGE_MS) return false;
  // HubSpot signs the URI with some characters decoded (its own documentation's list).
  const uri = decodeUri(request.uri);
  const expected = createHmac('sha256', clientSecret)
    .update(`${request.method}${uri}${request.body}${timestamp}`, 'utf8')
    .digest();
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const DECODED: Record<string, string> = {
  '%3A': ':',
  '%2F': '/',
  '%3F': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2A': '*',
  '%2C': ',',
  '%3B': ';',
};

function decodeUri(uri: string): string {
  return uri.replace(
    /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi,
    (match) => DECODED[match.toUpperCase()] ?? match,
  );
}

/** One event of an app webhook's array, as far as Mailvet reads it. */
export interface AppEvent {
  portalId: number;
  objectId: number;
  subscriptionType: string;
  eventId: number;
  occurredAt: number;
}

/** The events of a signed body that Mailvet acts on (`contact.creation`, `contact.privacyDeletion`). */
export function appEvents(body: unknown): AppEvent[] {
  if (!Array.isArray(body)) return [];
  return body.filter(
    (event): event is AppEvent =>
      typeof event === 'object' &&
      event !== null &&
      typeof event.portalId === 'number' &&
      typeof event.objectId === 'number' &&
      (event.subscriptionType === 'contact.creation' || event.subscriptionType === 'contact.privacyDeletion'),
  );
}
