/**
 * Searches for the popular domain (whole-domain comparison) or the provider family (second-level
 * name comparison) closest to what was typed. Only candidates of a near length are compared, a
 * character-set filter skips most of them before any distance is computed.
 */
import {
  familiesByLength,
  familiesBySld,
  genericTlds,
  longestPopularDomain,
  type PopularDomain,
  type ProviderFamily,
  popularByLength,
} from './suggest-data.ts';
import { bitCount, characterMask, osaDistance } from './suggest-distance.ts';
import { firstLetterPenalty, looksLikeTypo, maxEdits, rankWeight } from './suggest-score.ts';

/** A correction and the number of edits it takes. */
export interface Correction {
  domain: string;
  cost: number;
}

/** A popular domain to leave out of the targets (null: none), to measure the algorithm alone. */
export type ExcludedTarget = string | null;

/** The popular domain closest to the whole of `domain`, within the edits its name allows. */
export function closestPopularDomain(domain: string, excluded: ExcludedTarget): Correction | null {
  if (domain.length > longestPopularDomain + 2) return null;
  const mask = characterMask(domain);
  let best: PopularDomain | null = null;
  let bestCost = 0;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let length = domain.length - 2; length <= domain.length + 2; length++) {
    for (const target of popularByLength.get(length) ?? []) {
      if (target.domain === excluded) continue;
      const max = maxEdits(target.major, target.sld.length);
      if (Math.abs(length - domain.length) > max || bitCount(mask ^ target.mask) > 2 * max) continue;
      const cost = osaDistance(domain, target.domain, max);
      if (cost > max || !looksLikeTypo(domain, target.domain, cost, target.major)) continue;
      const score = cost + firstLetterPenalty(domain, target.domain) + rankWeight(target.rank);
      if (score < bestScore) {
        best = target;
        bestCost = cost;
        bestScore = score;
      }
    }
  }
  return best === null ? null : { domain: best.domain, cost: bestCost };
}

/**
 * The provider family whose second-level name is closest to `sld` (null when `sld` is one), among
 * those that could live under `suffix`: a family with a domain there, or a giant provider (its
 * name under another suffix is still the likely intent: `gmai.co.uk` → `gmail.co.uk`; short
 * giant names need their own suffix, `msk.ru` is not `msn.ru`).
 */
export function closestFamily(
  sld: string,
  suffix: string,
  excluded: ExcludedTarget,
): { family: ProviderFamily; cost: number } | null {
  const exact = familiesBySld.get(sld);
  if (exact !== undefined && hasMembers(exact, excluded)) return null;
  const mask = characterMask(sld);
  let best: ProviderFamily | null = null;
  let bestCost = 0;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let length = sld.length - 2; length <= sld.length + 2; length++) {
    for (const family of familiesByLength.get(length) ?? []) {
      const max = maxEdits(family.major, length);
      if (max === 0 || Math.abs(length - sld.length) > max || bitCount(mask ^ family.mask) > 2 * max)
        continue;
      if (!hasMembers(family, excluded) || !canLiveUnder(family, suffix, excluded)) continue;
      const cost = osaDistance(sld, family.sld, max);
      if (cost > max || !looksLikeTypo(sld, family.sld, cost, family.major)) continue;
      const score = cost + firstLetterPenalty(sld, family.sld) + rankWeight(family.rank);
      if (score < bestScore) {
        best = family;
        bestCost = cost;
        bestScore = score;
      }
    }
  }
  return best === null ? null : { family: best, cost: bestCost };
}

/**
 * A giant provider's name under a generic TLD it does not use (`gmail.net`, `outlook.org`): its
 * main domain under a generic TLD. Null when the provider does use that suffix.
 */
export function familyDomainFor(
  family: ProviderFamily,
  suffix: string,
  genericTlds: ReadonlySet<string>,
  excluded: ExcludedTarget,
): string | null {
  if (!family.major || !genericTlds.has(suffix)) return null;
  const members = family.members.filter((member) => member.domain !== excluded);
  if (members.some((member) => member.suffix === suffix)) return null;
  return members.find((member) => genericTlds.has(member.suffix))?.domain ?? null;
}

/**
 * The giant provider's domain that `domain` starts with, label-aligned (`gmail.com` in
 * `gmail.com.co`), when that provider has no country domains (else `yahoo.com.co` may be real).
 */
export function popularPrefix(domain: string, excluded: ExcludedTarget): string | null {
  let dot = domain.indexOf('.');
  while (dot > 0) {
    dot = domain.indexOf('.', dot + 1);
    if (dot < 0) return null;
    const prefix = domain.slice(0, dot);
    const family = familiesBySld.get(prefix.slice(0, prefix.indexOf('.')));
    if (family === undefined || !family.major || family.hasCountryVariants) continue;
    if (family.members.some((member) => member.domain === prefix && member.domain !== excluded))
      return prefix;
  }
  return null;
}

function canLiveUnder(family: ProviderFamily, suffix: string, excluded: ExcludedTarget): boolean {
  if (family.members.some((member) => member.suffix === suffix && member.domain !== excluded)) return true;
  return family.major && (family.sld.length >= 5 || genericTlds.has(suffix));
}

function hasMembers(family: ProviderFamily, excluded: ExcludedTarget): boolean {
  return excluded === null || family.members.some((member) => member.domain !== excluded);
}
