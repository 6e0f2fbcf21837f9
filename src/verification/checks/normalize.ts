/**
 * normalize: trim, Unicode NFC, split at the last `@`, domain to lower-case ASCII by
 * UTS-46. Runs for every address, so plain ASCII input takes a fast path that never reaches the
 * IDNA tables; the fast path accepts exactly what tr46 would (tests/verification/normalize.test.ts
 * compares the two).
 */
import type { NormalizedAddress } from '../report.ts';
import { idnaForms } from './idna.ts';
import { hostnameProblem } from './syntax-domain.ts';

const NON_ASCII = /[^\x00-\x7f]/;
const A_LABEL = /xn--/i;
const OPEN_BRACKET = 0x5b;

/** Normalizes an address as submitted: trims white space (ASCII and Unicode), then see below. */
export function normalizeAddress(raw: string): NormalizedAddress {
  return normalizeAddressUntrimmed(raw.trim());
}

/**
 * Normalizes without trimming: NFC, split at the last `@`, domain to ASCII. The syntax
 * conformance suites count surrounding white space as an error, so they call this directly.
 */
export function normalizeAddressUntrimmed(email: string): NormalizedAddress {
  // NFC cannot change an ASCII string, and most addresses are ASCII.
  const composed = NON_ASCII.test(email) ? email.normalize('NFC') : email;
  const at = composed.lastIndexOf('@');
  if (at < 0) {
    return { email, localPart: composed, rawDomain: '', asciiDomain: null, unicodeDomain: null };
  }
  const localPart = composed.slice(0, at);
  const rawDomain = composed.slice(at + 1);
  if (rawDomain.length === 0) {
    return { email, localPart, rawDomain, asciiDomain: null, unicodeDomain: null };
  }
  // A plain LDH name: lower-casing is all UTS-46 would do.
  if (hostnameProblem(rawDomain, false) === null) {
    const lower = rawDomain.toLowerCase();
    return { email, localPart, rawDomain, asciiDomain: lower, unicodeDomain: lower };
  }
  const { ascii, unicode } = otherDomainForms(rawDomain);
  return { email, localPart, rawDomain, asciiDomain: ascii, unicodeDomain: unicode };
}

/** Address literals, IDNs, A-labels and invalid names. */
function otherDomainForms(rawDomain: string): { ascii: string | null; unicode: string | null } {
  const ascii = NON_ASCII.test(rawDomain);
  // Address literals are not names: no IDNA, only case folding (`IPv6:` and hex digits).
  if (rawDomain.charCodeAt(0) === OPEN_BRACKET) {
    const literal = ascii ? null : rawDomain.toLowerCase();
    return { ascii: literal, unicode: literal };
  }
  // An ASCII name that fails the LDH rules fails UTS-46 too, unless it holds Punycode to decode.
  if (!ascii && !A_LABEL.test(rawDomain)) return { ascii: null, unicode: null };
  return idnaForms(rawDomain);
}
