/**
 * Domain typo correction (the suggestions stage). A known live domain is never corrected. Else:
 * - a fine suffix (`com`, `co.uk`): correct the second-level name towards a popular provider's
 *   (`gmial.com`, `gmai.co.uk`), a giant provider's wrong generic TLD (`gmail.net`), a popular
 *   domain with a stray label (`gmail.com.co`) or a doubled TLD (`example.con.com`);
 * - a broken suffix (`cmo`, `co.um`, `c`, `.cm`): the cheaper of the closest popular domain as a
 *   whole (`comcastn.et`) and the repaired suffix followed by the name correction above.
 */
import { familiesBySld, genericTlds, institutionalLabels, knownDomains, validTlds } from './suggest-data.ts';
import { osaDistance } from './suggest-distance.ts';
import {
  type Correction,
  closestFamily,
  closestPopularDomain,
  type ExcludedTarget,
  familyDomainFor,
  popularPrefix,
} from './suggest-names.ts';
import { analyzeSuffix } from './suggest-suffix.ts';

/** How to run the correction; the defaults are what production uses. */
export interface CorrectionOptions {
  /** Never correct a domain on the known list (false only to measure the algorithm alone). */
  useKnownDomains: boolean;
  /** A popular domain left out of the targets (to measure the algorithm on that domain itself). */
  excludedTarget: ExcludedTarget;
}

/** Production options. */
export const DEFAULT_OPTIONS: Readonly<CorrectionOptions> = { useKnownDomains: true, excludedTarget: null };

// RFC 1035 caps a name at 255 octets; anything longer is not a typo of a mail domain.
const MAX_DOMAIN_LENGTH = 255;
const LDH_DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
const CLEAN_DOMAIN = /^[a-z0-9.-]+$/;
const NON_ASCII = /[^\x00-\x7f]/;

/** The corrected domain for `domain`, or null when it needs none. Never throws. */
export function correctDomain(domain: string, options: CorrectionOptions = DEFAULT_OPTIONS): string | null {
  if (domain.length === 0 || domain.length > MAX_DOMAIN_LENGTH) return null;
  if (options.useKnownDomains && knownDomains.has(domain)) return null;
  const cleaned = cleanDomain(domain);
  if (cleaned === '') return null;
  const corrected = correctCleaned(cleaned, options) ?? cleaned;
  return corrected !== domain && LDH_DOMAIN.test(corrected) ? corrected : null;
}

/**
 * Lower-cases, drops what cannot start a name (`#gmail.com`, `.example.com`), reads an inner
 * comma as a dot (`example,com`), drops other stray ASCII characters inside (`com/.au`) and
 * collapses doubled dots. Stray characters at the very end stay: they are compared with the
 * suffixes (`co,` is one key from `com`). Non-ASCII input gives '' (nothing to suggest): the
 * stage receives A-labels, and dropping letters would name another domain.
 */
export function cleanDomain(domain: string): string {
  const lower = domain.toLowerCase();
  if (CLEAN_DOMAIN.test(lower) && !lower.includes('..') && !lower.startsWith('.') && !lower.startsWith('-')) {
    return lower;
  }
  if (NON_ASCII.test(lower)) return '';
  let start = 0;
  while (start < lower.length && !isAlphanumeric(lower.charCodeAt(start))) start++;
  let end = lower.length;
  while (end > start && !isAlphanumeric(lower.charCodeAt(end - 1))) end--;
  let inner = '';
  for (let i = start; i < end; i++) {
    const c = lower[i]!;
    const code = c.charCodeAt(0);
    if (c === ',' || c === '.') {
      if (!inner.endsWith('.')) inner += '.';
    } else if (isAlphanumeric(code) || c === '-') {
      inner += c;
    }
  }
  return inner === '' ? '' : inner + lower.slice(end);
}

function correctCleaned(domain: string, options: CorrectionOptions): string | null {
  if (options.useKnownDomains && knownDomains.has(domain)) return domain;
  const state = analyzeSuffix(domain);
  if (state.kind === 'fine') return correctName(state.labels, state.suffixLabels, options)?.domain ?? null;

  const whole = closestPopularDomain(domain, options.excludedTarget);
  const structural =
    state.repair === null ? correctUnknownSuffix(domain, options) : correctRepaired(state.repair, options);
  if (structural !== null && (whole === null || structural.cost < whole.cost)) return structural.domain;
  return whole?.domain ?? structural?.domain ?? null;
}

/** Corrections for a domain whose suffix is fine; the cost counts the edits made. */
function correctName(labels: string[], suffixLabels: 1 | 2, options: CorrectionOptions): Correction | null {
  const domain = labels.join('.');
  const excluded = options.excludedTarget;
  const withStrayLabel = popularPrefix(domain, excluded);
  if (withStrayLabel !== null) return { domain: withStrayLabel, cost: 1 };

  const count = labels.length;
  const suffix = labels.slice(count - suffixLabels).join('.');
  if (suffixLabels === 1 && count >= 3 && isDoubledTld(labels[count - 2]!, suffix)) {
    return { domain: [...labels.slice(0, count - 2), suffix].join('.'), cost: 1 };
  }
  // A name with subdomains is someone's own host (`mail.example.com`), and providers never live
  // under schools' or governments' suffixes (`gial.edu` is not a gmail typo).
  if (count !== suffixLabels + 1 || institutionalLabels.has(labels[count - suffixLabels]!)) return null;

  const sld = labels[0]!;
  const closest = closestFamily(sld, suffix, excluded);
  const family = closest?.family ?? familiesBySld.get(sld) ?? null;
  const cost = closest?.cost ?? 0;
  const familyDomain = family === null ? null : familyDomainFor(family, suffix, genericTlds, excluded);
  if (familyDomain !== null) return { domain: familyDomain, cost: cost + 1 };
  if (closest === null) return null;
  return { domain: `${closest.family.sld}.${suffix}`, cost };
}

/** A suffix was repaired (`example.cmo` → `example.com`): then the name is corrected as usual. */
function correctRepaired(repair: Correction, options: CorrectionOptions): Correction {
  let state = analyzeSuffix(repair.domain);
  // One more round for a repair that exposes a near-miss second level (`cobr` → `co.br` → `com.br`).
  if (state.kind === 'broken' && state.repair !== null && state.repair.domain !== repair.domain) {
    repair = { domain: state.repair.domain, cost: repair.cost + state.repair.cost };
    state = analyzeSuffix(repair.domain);
  }
  if (state.kind !== 'fine') return repair;
  const named = correctName(state.labels, state.suffixLabels, options);
  return named === null ? repair : { domain: named.domain, cost: repair.cost + named.cost };
}

/** No popular suffix is near (`homail.aftership`): the name alone may still be a typo. */
function correctUnknownSuffix(domain: string, options: CorrectionOptions): Correction | null {
  const labels = domain.split('.');
  if (labels.length !== 2) return null;
  const [sld, suffix] = labels as [string, string];
  const closest = closestFamily(sld, suffix, options.excludedTarget);
  return closest === null ? null : { domain: `${closest.family.sld}.${suffix}`, cost: closest.cost };
}

/** `example.com.com`, `example.con.com`: the label before a generic TLD repeats it. */
function isDoubledTld(label: string, tld: string): boolean {
  if (!genericTlds.has(tld)) return false;
  return label === tld || (!validTlds.has(label) && label.length >= 2 && osaDistance(label, tld, 1) <= 1);
}

function isAlphanumeric(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
}
