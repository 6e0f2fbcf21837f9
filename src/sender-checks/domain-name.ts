/**
 * The domain and DKIM selectors a caller asks about: a host name of at least two labels (an IDN
 * becomes its A-label form), never an IP address; selectors are dot-separated LDH labels.
 */
import { isAddressLiteralDomain } from '../net/address-guard.ts';
import { asciiDomainIgnoringLength } from '../verification/checks/idna.ts';
import { hostnameProblem } from '../verification/checks/syntax-domain.ts';

/** Most selectors in one request. */
export const MAX_DKIM_SELECTORS = 10;

/** The ASCII form of a domain to check, or why it is not one. */
export function senderDomain(raw: string): { ok: true; domain: string } | { ok: false; problem: string } {
  const trimmed = raw.trim().replace(/\.$/, '');
  if (trimmed === '') return { ok: false, problem: 'Enter a domain name' };
  if (isAddressLiteralDomain(trimmed)) return { ok: false, problem: 'An IP address is not a domain name' };
  const ascii = asciiDomainIgnoringLength(trimmed)?.toLowerCase() ?? null;
  if (ascii === null || hostnameProblem(ascii, true) !== null || !ascii.includes('.')) {
    return { ok: false, problem: 'Invalid domain name' };
  }
  return { ok: true, domain: ascii };
}

const SELECTOR =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Whether `selector` is a DKIM selector this check asks about (RFC 6376 §3.1, LDH labels). */
export function isSelector(selector: string): boolean {
  return selector.length <= 253 && SELECTOR.test(selector);
}
