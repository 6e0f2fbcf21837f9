/**
 * Rules for a list's own fields, shared by the JSON body (`name`, `webhook_url`, each entry of
 * `emails`) and by CSV uploads (whose name and webhook come from elsewhere in the request).
 */
import { validateWebhookUrl } from '../../webhooks/url.ts';
import { UploadError } from './upload-error.ts';

/** Longest address accepted, in characters (as for POST /verify). */
export const MAX_EMAIL_LENGTH = 1024;
/** Longest list name, in characters. */
export const MAX_NAME_LENGTH = 200;
/** The name a caller may give a list uploaded without one. */
export const DEFAULT_LIST_NAME = 'Untitled list';

// In a `u` regex a surrogate range matches only unpaired halves: paired ones form one code point.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Whether `value` is text that can be stored and sent on: no lone UTF-16 surrogate (JSON's `\ud800`
 * escape makes one; UTF-8 cannot encode it, so the store and the SMTP probe would mangle it).
 */
export function isWellFormed(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/** Length in code points (what a user counts), computed only when UTF-16 length could mislead. */
export function codePointLength(value: string, limit: number): number {
  return value.length <= limit ? value.length : [...value].length;
}

/**
 * Whether `value` is an acceptable address entry: a string with something other than white space,
 * at most 1024 characters, well-formed Unicode. Anything that passes is verified; a malformed
 * address is a result (INVALID_SYNTAX), not an upload error.
 */
export function isEmailEntry(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /\S/.test(value) &&
    codePointLength(value, MAX_EMAIL_LENGTH) <= MAX_EMAIL_LENGTH &&
    isWellFormed(value)
  );
}

/**
 * Checks a list name: absent (undefined or null) gives undefined, for the caller to default;
 * otherwise a string of 1 to 200 characters once trimmed, returned trimmed.
 *
 * @throws UploadError (`validation_failed`, field `name`)
 */
export function checkListName(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const name = typeof value === 'string' ? value.trim() : null;
  if (
    name === null ||
    name === '' ||
    codePointLength(name, MAX_NAME_LENGTH) > MAX_NAME_LENGTH ||
    !isWellFormed(name)
  ) {
    throw new UploadError(
      'validation_failed',
      `Must be a string of 1 to ${MAX_NAME_LENGTH} characters`,
      'name',
    );
  }
  return name;
}

/**
 * Checks a webhook URL by the rules of `validateWebhookUrl` (the sender's own): absent (undefined
 * or null) gives undefined. Where it may point (no private addresses) is the deliverer's check,
 * made when it connects.
 *
 * @throws UploadError (`validation_failed`, field `webhook_url`)
 */
export function checkWebhookUrl(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const problem =
    typeof value === 'string' && !isWellFormed(value)
      ? 'must be well-formed text'
      : validateWebhookUrl(value);
  if (problem === null) return value as string;
  throw new UploadError('validation_failed', `Must be an http or https URL: ${problem}`, 'webhook_url');
}
