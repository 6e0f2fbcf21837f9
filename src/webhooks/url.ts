/**
 * The rules for a list's `webhook_url`, checked when the list is made so that a caller hears about
 * a bad URL at once rather than after the list ran. Where the URL points (no private or loopback
 * addresses) is checked by the sender when it connects, since DNS may say something else by then.
 */

/** Longest accepted webhook URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Null when `url` is acceptable: an absolute http or https URL with a host, without user name or
 * password (they would be shown wherever the list is, and sent to any redirect target by other
 * clients), at most 2048 characters. Otherwise the reason, for the API's error message.
 */
export function validateWebhookUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.trim() === '') return 'must be a non-empty string';
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  // The URL parser trims and percent-encodes silently; a URL that needs that is a typo.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return 'must not contain white space or control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.hostname === '') return 'must name a host';
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain a user name or password';
  return null;
}
