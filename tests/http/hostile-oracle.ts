/**
 * What the contract allows for a request, worked out from its JSON body alone, and the
 * checks every response must pass. The oracle reads the body the way the server must: bytes decoded
 * as UTF-8 (invalid sequences become U+FFFD), then JSON.
 */
export type Endpoint = 'verify' | 'bulk';

/** What the contract allows for one request. */
export interface Expectation {
  /** Statuses the contract allows. */
  statuses: readonly number[];
  /** For a 422 (when that is the only failure the body has): one of these fields must be named. */
  fields?: readonly string[];
  /** For a 422 on a bad address value: its message must read "Invalid email format". */
  invalidFormatMessage?: boolean;
  /** Single verify: the submitted string, when the body's text is exactly known. */
  email?: string;
  /** Single verify: a 200 must say INVALID_SYNTAX. */
  invalidSyntax?: boolean;
  /** Bulk: the submitted entries, when the body's text is exactly known and all are strings. */
  emails?: readonly string[];
}

const MAX_ADDRESS_CHARS = 1024;
const MAX_BULK_ENTRIES = 100;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Allows `extra` statuses too (an ambiguity the contract leaves open); field checks then lapse. */
export function alsoAllow(expectation: Expectation, ...extra: number[]): Expectation {
  const statuses = [...new Set([...expectation.statuses, ...extra])];
  return { ...expectation, statuses, fields: extra.includes(422) ? undefined : expectation.fields };
}

/** The expectation for an authenticated request whose Content-Type is plain `application/json`. */
export function expectFromJsonBody(endpoint: Endpoint, body: Buffer): Expectation {
  const text = body.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(body);
  // A leading BOM is not JSON; a lenient parser may strip it. Either answer is fine.
  const bom = text.charCodeAt(0) === 0xfeff;
  let value: unknown;
  try {
    value = JSON.parse(bom ? text.slice(1) : text);
  } catch {
    return { statuses: [400] };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { statuses: [400] };
  const object = value as Record<string, unknown>;
  let expectation = endpoint === 'verify' ? expectVerify(object, exact) : expectBulk(object, exact);
  // Prototype keys may be refused as a bad body or dropped (secure JSON parsing): the contract settles
  // neither. Other unknown properties are ignored (the API's schemas say so).
  if (hasPrototypeKeys(value)) expectation = alsoAllow(expectation, 400);
  if (bom) expectation = alsoAllow(expectation, 400);
  return expectation;
}

type ValueVerdict = 'good' | 'bad' | 'either';

/** The contract: a non-empty string of at most 1024 characters. Counting code points or code units, and
 * whether white space alone is "empty", are left open: those cases may go either way. */
function addressValue(value: unknown): ValueVerdict {
  if (typeof value !== 'string' || value.length === 0) return 'bad';
  const codePoints = [...value].length;
  if (codePoints > MAX_ADDRESS_CHARS) return 'bad';
  if (value.length > MAX_ADDRESS_CHARS || value.trim() === '') return 'either';
  return 'good';
}

function expectVerify(body: Record<string, unknown>, exact: boolean): Expectation {
  const has = Object.hasOwn(body, 'email');
  const email = body.email;
  const verdict = has ? addressValue(email) : 'bad';
  const badString = typeof email === 'string';
  if (verdict === 'bad') return { statuses: [422], fields: ['email'], invalidFormatMessage: badString };
  const value = email as string;
  const invalidSyntax = exact && mustBeInvalidSyntax(value);
  const ok: Expectation = { statuses: [200], email: exact ? value : undefined, invalidSyntax };
  return verdict === 'either' ? alsoAllow(ok, 422) : ok;
}

function expectBulk(body: Record<string, unknown>, exact: boolean): Expectation {
  const emails = Object.hasOwn(body, 'emails') ? body.emails : undefined;
  if (!Array.isArray(emails) || emails.length === 0) return { statuses: [422], fields: ['emails'] };
  const verdicts = emails.map(addressValue);
  const bad = verdicts.flatMap((verdict, i) => (verdict === 'bad' ? [`emails[${i}]`] : []));
  if (emails.length > MAX_BULK_ENTRIES) return { statuses: [422], fields: ['emails', ...bad] };
  if (bad.length > 0) {
    const badStrings = emails.every((entry) => typeof entry === 'string');
    return { statuses: [422], fields: bad, invalidFormatMessage: badStrings };
  }
  const ok: Expectation = { statuses: [200], emails: exact ? (emails as string[]) : undefined };
  return verdicts.includes('either') ? alsoAllow(ok, 422) : ok;
}

/** Facts that make any address invalid whatever else it holds. */
export function mustBeInvalidSyntax(address: string): boolean {
  const trimmed = address.trim();
  return LONE_SURROGATE.test(address) || !trimmed.includes('@') || Buffer.byteLength(trimmed) > 254;
}

/** `__proto__` anywhere, or `constructor.prototype`: walked without recursion (bodies nest deeply). */
function hasPrototypeKeys(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor = (node as Record<string, unknown>).constructor;
    if (
      Object.hasOwn(node, 'constructor') &&
      ctor !== null &&
      typeof ctor === 'object' &&
      Object.hasOwn(ctor, 'prototype')
    ) {
      return true;
    }
    for (const child of Object.values(node)) pending.push(child);
  }
  return false;
}
