/**
 * Address literals (RFC 5321 §4.1.3): `[IPv4]`, `[IPv6:...]` and `[tag:content]`, checked by hand
 * rather than by regex so that the cost stays linear whatever the input.
 */

/** Why an address literal is not valid. */
export type AddressLiteralProblem = 'unclosed' | 'bad_ipv4' | 'bad_ipv6' | 'bad_general_literal';

const COLON = 0x3a;
const HYPHEN = 0x2d;
const IPV6_TAG = 'ipv6:';

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Snum "." Snum "." Snum "." Snum, each 1–3 digits worth at most 255. */
export function isIpv4(text: string): boolean {
  let parts = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (isDigit(c)) {
      digits++;
      value = value * 10 + (c - 0x30);
      if (digits > 3 || value > 255) return false;
    } else if (c === 0x2e) {
      if (digits === 0) return false;
      parts++;
      digits = 0;
      value = 0;
    } else {
      return false;
    }
  }
  return parts === 4;
}

/** Number of 1–4 hex-digit groups in a `:`-separated list, or -1 when a group is malformed. */
function countHexGroups(text: string): number {
  if (text.length === 0) return 0;
  let groups = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : COLON;
    if (c === COLON) {
      if (digits === 0) return -1;
      groups++;
      digits = 0;
    } else if (isHexDigit(c) && digits < 4) {
      digits++;
    } else {
      return -1;
    }
  }
  return groups;
}

/**
 * IPv6-addr of RFC 5321 §4.1.3: eight groups, or six and an IPv4 tail; `::` may appear once.
 * RFC 5321 says `::` stands for at least two zero groups, but RFC 4291 and RFC 5952 let it stand
 * for one; the isemail mailbox view accepts that form (ISEMAIL_RFC5321_IPV6DEPRECATED), so we do
 * too: with `::`, at most 7 groups (5 before an IPv4 tail).
 */
export function isIpv6(text: string): boolean {
  let hexPart = text;
  let fullGroups = 8;
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return false;
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIpv4(tail)) return false;
    fullGroups = 6;
    hexPart = text.slice(0, lastColon + 1);
    // The colon before the IPv4 tail separates; keep it only when it ends a `::`.
    if (!hexPart.endsWith('::')) hexPart = hexPart.slice(0, -1);
  }
  const compressed = hexPart.indexOf('::');
  if (compressed < 0) return countHexGroups(hexPart) === fullGroups;
  if (hexPart.indexOf('::', compressed + 1) >= 0) return false;
  const before = countHexGroups(hexPart.slice(0, compressed));
  const after = countHexGroups(hexPart.slice(compressed + 2));
  return before >= 0 && after >= 0 && before + after <= fullGroups - 1;
}

/** Standardized-tag is an Ldh-str: letters, digits, hyphens, not ending with a hyphen. */
function isStandardizedTag(tag: string): boolean {
  if (tag.length === 0 || tag.charCodeAt(tag.length - 1) === HYPHEN) return false;
  for (let i = 0; i < tag.length; i++) {
    const c = tag.charCodeAt(i);
    const lower = c | 0x20;
    if (!(isDigit(c) || (lower >= 0x61 && lower <= 0x7a) || c === HYPHEN)) return false;
  }
  return true;
}

/** dcontent: printable US-ASCII except `[`, `\` and `]` (%d33-90 / %d94-126). */
function isGeneralContent(content: string): boolean {
  if (content.length === 0) return false;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c < 33 || c > 126 || (c >= 91 && c <= 93)) return false;
  }
  return true;
}

/**
 * Checks a bracketed address literal (already lower-cased); null when valid. A tag other than
 * `IPv6` makes it a General-address-literal, accepted by its grammar (RFC 5321 asks the tag to be
 * registered with IANA, which today lists only IPv6; see docs/conformance.md).
 */
export function addressLiteralProblem(literal: string): AddressLiteralProblem | null {
  if (
    literal.length < 2 ||
    literal.charCodeAt(0) !== 0x5b ||
    literal.charCodeAt(literal.length - 1) !== 0x5d
  ) {
    return 'unclosed';
  }
  const inner = literal.slice(1, -1);
  if (inner.slice(0, IPV6_TAG.length).toLowerCase() === IPV6_TAG) {
    return isIpv6(inner.slice(IPV6_TAG.length)) ? null : 'bad_ipv6';
  }
  const colon = inner.indexOf(':');
  if (colon < 0) return isIpv4(inner) ? null : 'bad_ipv4';
  return isStandardizedTag(inner.slice(0, colon)) && isGeneralContent(inner.slice(colon + 1))
    ? null
    : 'bad_general_literal';
}
