/**
 * UTS-46 processing of domain names through tr46, memoized: tr46 costs several microseconds a call
 * whatever the name, while lists repeat their domains. Pure functions of the name, so a bounded
 * module-level cache changes nothing but speed.
 */
import { createRequire } from 'node:module';
import type * as Tr46 from 'tr46';

/**
 * tr46 and its tables (a quarter of a megabyte of code) are loaded with the first name that needs
 * them: normalize.ts takes plain ASCII names, nearly every domain, without them, so a start does not
 * parse them.
 */
let tr46: typeof Tr46 | undefined;
const uts46 = (): typeof Tr46 => (tr46 ??= createRequire(import.meta.url)('tr46') as typeof Tr46);

/** IDNA2008 as UTS-46 profiles it for host names: nontransitional, STD3 rules, DNS lengths. */
const IDNA_OPTIONS = {
  transitionalProcessing: false,
  useSTD3ASCIIRules: true,
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
} as const;
const TO_ASCII_OPTIONS = { ...IDNA_OPTIONS, verifyDNSLength: true } as const;

/**
 * Longest domain text handed to tr46. A valid domain is at most 253 octets in ASCII; UTS-46 may
 * drop ignored characters, so the raw text may be somewhat longer, but never four times as long in
 * any address a person types. Longer input fails without the cost of mapping it.
 */
export const MAX_DOMAIN_INPUT_LENGTH = 1024;

/** Entries kept, and the longest name cached: bounds the memory to a few megabytes. */
const CACHE_ENTRIES = 10_000;
const CACHE_KEY_LENGTH = 255;

/** A domain in A-label form (for DNS) and U-label form (for display); both null when invalid. */
export interface DomainForms {
  ascii: string | null;
  unicode: string | null;
}

const INVALID: DomainForms = Object.freeze({ ascii: null, unicode: null });
const A_LABEL = /xn--/i;
const cache = new Map<string, DomainForms>();

function convert(domain: string): DomainForms {
  const ascii = uts46().toASCII(domain, TO_ASCII_OPTIONS);
  if (ascii === null) return INVALID;
  return { ascii, unicode: A_LABEL.test(ascii) ? uts46().toUnicode(ascii, IDNA_OPTIONS).domain : ascii };
}

/** UTS-46 ToASCII and ToUnicode of a domain name (not an address literal). */
export function idnaForms(domain: string): DomainForms {
  if (domain.length > MAX_DOMAIN_INPUT_LENGTH) return INVALID;
  if (domain.length > CACHE_KEY_LENGTH) return convert(domain);
  let forms = cache.get(domain);
  if (forms === undefined) {
    forms = convert(domain);
    // First in, first out: Map keeps insertion order, so the oldest key comes first.
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(domain, forms);
  }
  return forms;
}

/**
 * UTS-46 ToASCII without the DNS length limits, for diagnostics only: tells a domain that is too
 * long from one that is not valid IDNA at all.
 */
export function asciiDomainIgnoringLength(domain: string): string | null {
  if (domain.length > MAX_DOMAIN_INPUT_LENGTH) return null;
  return uts46().toASCII(domain, IDNA_OPTIONS);
}
