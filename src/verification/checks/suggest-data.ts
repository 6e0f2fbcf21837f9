/**
 * The data the suggestions stage searches, indexed once at module load: known mail domains (one
 * Set lookup), popular domains bucketed by length, their second-level names grouped into provider
 * families, and the public suffixes (TLDs and second levels such as co.uk) with their ranks.
 */

import ianaTlds from 'tlds/index.json' with { type: 'json' };
import commonDomains from '../data/common-mail-domains.json' with { type: 'json' };
import popularData from '../data/popular-domains.json' with { type: 'json' };
import tldData from '../data/popular-tlds.json' with { type: 'json' };
import { characterMask, osaDistance } from './suggest-distance.ts';

/** A popular domain, a correction target. */
export interface PopularDomain {
  domain: string;
  /** 0 for the most used. */
  rank: number;
  /** One of the few giant providers (`majorCount` in popular-domains.json). */
  major: boolean;
  /** The label before the public suffix (`gmail`), and the suffix (`com`, `co.uk`). */
  sld: string;
  suffix: string;
  mask: number;
}

/** Every popular domain sharing one second-level name (`yahoo.com`, `yahoo.fr`, ...). */
export interface ProviderFamily {
  sld: string;
  rank: number;
  major: boolean;
  mask: number;
  /** Members, most used first. */
  members: PopularDomain[];
  /** A member sits under a two-label suffix (`yahoo.com.br`): then `<domain>.<cc>` may be real. */
  hasCountryVariants: boolean;
}

/** A public suffix that mail addresses commonly use, as a correction target. */
export interface PopularSuffix {
  suffix: string;
  /** `.` + suffix: what a window at the end of a domain is compared with. */
  dotted: string;
  rank: number;
  mask: number;
  /** Two labels (`co.uk`). */
  twoLabels: boolean;
}

const popularSuffixSet = new Set(tldData.popular);

/** Known mail domains: a domain here is live and is never corrected. */
export const knownDomains: ReadonlySet<string> = new Set([...commonDomains.domains, ...popularData.domains]);

/**
 * Special-use names (RFC 2606, RFC 6761, RFC 7686, RFC 9476): real in the places that use them,
 * so never "corrected" to a public TLD. `example` is left out: as a label it is far more often part
 * of a name (`gobblin.example.gob`) than a TLD.
 */
const SPECIAL_USE_TLDS = ['test', 'invalid', 'localhost', 'local', 'onion', 'alt', 'internal', 'arpa'];

/** Every TLD accepted as real: the IANA root zone (the `tlds` package, kept current) and special use. */
export const validTlds: ReadonlySet<string> = new Set([
  ...ianaTlds.filter((tld) => /^[a-z0-9-]+$/.test(tld)),
  ...SPECIAL_USE_TLDS,
]);

/** Generic TLDs, most used first; a giant provider's name under the wrong one is corrected. */
export const genericTlds: ReadonlySet<string> = new Set(['com', 'net', 'org', 'info', 'biz', 'co']);

/** Second-level labels per country TLD (`uk` → co, org, ac...), most used first. */
export const secondLevels: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(tldData.secondLevel),
);

/** Suffixes of two labels (`co.uk`, `com.br`) known to exist. */
export const twoLabelSuffixes: ReadonlySet<string> = buildTwoLabelSuffixes();

/** First labels of suffixes where consumer providers never live (edu, gov, ac.uk...). */
export const institutionalLabels: ReadonlySet<string> = new Set(tldData.institutional);

/** Popular suffixes, most used first, bucketed by the length of their dotted form (`.com`: 4). */
export const popularSuffixesByLength: ReadonlyMap<number, readonly PopularSuffix[]> = bucketByLength(
  tldData.popular.map((suffix, rank) => ({
    suffix,
    dotted: `.${suffix}`,
    rank,
    mask: characterMask(`.${suffix}`),
    twoLabels: suffix.includes('.'),
  })),
  (entry) => entry.dotted.length,
);

/** The longest dotted popular suffix. */
export const longestPopularSuffix = Math.max(...tldData.popular.map((s) => s.length + 1));

/**
 * Real but little-used two-letter country TLDs that are a generic TLD with one letter dropped
 * (`.cm`, `.om` for `.com`; `.ne`, `.et` for `.net`): in practice they are typos.
 */
export const typoProneTlds: ReadonlySet<string> = buildTypoProneTlds();

/** Popular domains bucketed by length, for whole-domain comparison. */
export const popularByLength: ReadonlyMap<number, readonly PopularDomain[]> = bucketByLength(
  popularData.domains.map(toPopularDomain),
  (entry) => entry.domain.length,
);

/** Provider families by second-level name. */
export const familiesBySld: ReadonlyMap<string, ProviderFamily> = buildFamilies();

/** Provider families bucketed by the length of their second-level name. */
export const familiesByLength: ReadonlyMap<number, readonly ProviderFamily[]> = bucketByLength(
  [...familiesBySld.values()],
  (family) => family.sld.length,
);

/** The longest popular domain, to skip whole-domain comparison of longer input at once. */
export const longestPopularDomain = Math.max(...popularData.domains.map((d) => d.length));

/** Splits a well-formed domain into its second-level name and its public suffix. */
export function splitPublicSuffix(domain: string): { sld: string; suffix: string } {
  const labels = domain.split('.');
  const count = labels.length;
  const lastTwo = count >= 3 ? `${labels[count - 2]}.${labels[count - 1]}` : '';
  const suffixLabels = lastTwo !== '' && twoLabelSuffixes.has(lastTwo) ? 2 : 1;
  return {
    sld: labels[count - 1 - suffixLabels] ?? '',
    suffix: labels.slice(count - suffixLabels).join('.'),
  };
}

function toPopularDomain(domain: string, rank: number): PopularDomain {
  const { sld, suffix } = splitPublicSuffix(domain);
  return { domain, rank, major: rank < popularData.majorCount, sld, suffix, mask: characterMask(domain) };
}

function buildTwoLabelSuffixes(): Set<string> {
  const suffixes = new Set(tldData.popular.filter((s) => s.includes('.')));
  for (const [tld, labels] of Object.entries(tldData.secondLevel)) {
    for (const label of labels) suffixes.add(`${label}.${tld}`);
  }
  return suffixes;
}

function buildTypoProneTlds(): Set<string> {
  const prone = new Set<string>();
  const generic = ['com', 'net', 'org'];
  for (const tld of validTlds) {
    if (tld.length !== 2 || popularSuffixSet.has(tld)) continue;
    if (generic.some((g) => osaDistance(tld, g, 1) === 1)) prone.add(tld);
  }
  return prone;
}

function buildFamilies(): Map<string, ProviderFamily> {
  const families = new Map<string, ProviderFamily>();
  popularData.domains.forEach((domain, rank) => {
    const entry = toPopularDomain(domain, rank);
    let family = families.get(entry.sld);
    if (family === undefined) {
      family = {
        sld: entry.sld,
        rank,
        major: entry.major,
        mask: characterMask(entry.sld),
        members: [],
        hasCountryVariants: false,
      };
      families.set(entry.sld, family);
    }
    family.members.push(entry);
    if (entry.suffix.includes('.')) family.hasCountryVariants = true;
  });
  return families;
}

function bucketByLength<T>(items: readonly T[], lengthOf: (item: T) => number): Map<number, T[]> {
  const buckets = new Map<number, T[]>();
  for (const item of items) {
    const length = lengthOf(item);
    const bucket = buckets.get(length);
    if (bucket === undefined) buckets.set(length, [item]);
    else bucket.push(item);
  }
  return buckets;
}
