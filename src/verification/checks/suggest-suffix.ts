/**
 * The end of a domain: is its public suffix real and fine (`com`, `co.uk`), or broken (`cmo`,
 * `co.um`, `couk`, `.cm` for `.com`), and if broken, the closest popular suffix.
 */
import {
  longestPopularSuffix,
  popularSuffixesByLength,
  secondLevels,
  twoLabelSuffixes,
  typoProneTlds,
  validTlds,
} from './suggest-data.ts';
import { bitCount, characterMask, osaDistance } from './suggest-distance.ts';
import { firstLetterPenalty, rankWeight } from './suggest-score.ts';

/** A domain whose suffix was repaired, with the number of edits it took. */
export interface Repair {
  domain: string;
  cost: number;
}

/** What the end of a domain looks like. */
export type SuffixState =
  | { kind: 'fine'; labels: string[]; suffixLabels: 1 | 2 }
  | { kind: 'broken'; repair: Repair | null };

/** Reads the end of a cleaned domain (lower-case; may still end with stray punctuation). */
export function analyzeSuffix(domain: string): SuffixState {
  const labels = domain.split('.');
  const count = labels.length;
  const tld = labels[count - 1]!;
  if (count < 2) return { kind: 'broken', repair: repairByWindow(domain) };
  const beforeTld = labels[count - 2]!;
  const levels = secondLevels.get(tld);

  if (!validTlds.has(tld)) return { kind: 'broken', repair: repairByWindow(domain) };
  if (typoProneTlds.has(tld) && !(count >= 3 && levels?.includes(beforeTld))) {
    return { kind: 'broken', repair: repairByWindow(domain) };
  }
  if (count >= 3 && twoLabelSuffixes.has(`${beforeTld}.${tld}`)) {
    return { kind: 'fine', labels, suffixLabels: 2 };
  }
  if (count >= 3 && levels !== undefined) {
    // `example.co.br`, `example.gob.br`: this country registers names under a second level.
    const level = closestSecondLevel(beforeTld, levels);
    if (level !== null) {
      const fixed = [...labels.slice(0, count - 2), level, tld].join('.');
      return { kind: 'broken', repair: { domain: fixed, cost: 1 } };
    }
  }
  return { kind: 'fine', labels, suffixLabels: 1 };
}

function closestSecondLevel(label: string, levels: readonly string[]): string | null {
  for (const level of levels) {
    if (osaDistance(label, level, 1) <= 1) return level;
  }
  return null;
}

/**
 * Compares the last characters of the domain with each popular suffix (`.com`, `.co.uk`), over
 * windows a little shorter or longer than the suffix, so a missing, extra or misplaced dot is
 * one edit like any other (`examplecom`, `gmailc.om`, `co.ukl`). A window that stops early
 * (`.c`, `.co.u`) is one edit: the writer stopped typing.
 */
export function repairByWindow(domain: string): Repair | null {
  // Dots among stray characters at the end (`example.com.`) do not start a label.
  const lastDot = domain.lastIndexOf('.', lastAlphanumeric(domain));
  const secondLastDot = lastDot > 0 ? domain.lastIndexOf('.', lastDot - 1) : -1;
  // A suffix starts at a dot, give or take one misplaced character (`gmailc.om`); a domain
  // without any dot may have lost it anywhere (`examplecom`).
  const earliestStart = lastDot < 0 ? 1 : Math.max(1, (secondLastDot < 0 ? lastDot : secondLastDot) - 1);
  const longest = Math.min(domain.length - earliestStart, longestPopularSuffix + 2);
  let best: Repair | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let length = 1; length <= longest; length++) {
    const start = domain.length - length;
    const spansTwoLabels = start < lastDot - 1;
    const window = domain.slice(start);
    const windowMask = characterMask(window);
    const startsWithDot = window.charCodeAt(0) === 0x2e;
    for (let targetLength = length - 2; targetLength <= length + 2; targetLength++) {
      for (const target of popularSuffixesByLength.get(targetLength) ?? []) {
        if (spansTwoLabels && !target.twoLabels) continue;
        const max = target.suffix.length <= 2 ? 1 : 2;
        const truncated =
          startsWithDot && length >= 2 && length < targetLength && target.dotted.startsWith(window);
        if (!truncated && bitCount(windowMask ^ target.mask) > 2 * max) continue;
        const cost = truncated ? 1 : osaDistance(window, target.dotted, max);
        if (cost > max) continue;
        const score = cost + firstLetterPenalty(window, target.suffix) + rankWeight(target.rank);
        if (score >= bestScore) continue;
        const remainder = trimTrailingDots(domain.slice(0, start));
        if (!isPlausibleName(remainder, target.suffix)) continue;
        if (start > lastDot + 1 && !isPlausibleSplit(domain, lastDot, start, target.suffix, cost)) continue;
        bestScore = score;
        best = { domain: `${remainder}${target.dotted}`, cost };
      }
    }
  }
  return best;
}

function lastAlphanumeric(s: string): number {
  let i = s.length - 1;
  while (i >= 0) {
    const c = s.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) break;
    i--;
  }
  return i;
}

function trimTrailingDots(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2e) end--;
  return s.slice(0, end);
}

/**
 * The part kept before a repaired suffix must be a name, and must not leave a TLD stranded in
 * front of it: `example.comme` is `example.com`, not `example.com.me` (com.me is no suffix).
 */
function isPlausibleName(remainder: string, suffix: string): boolean {
  if (remainder === '' || !/[a-z0-9]$/.test(remainder)) return false;
  const dot = remainder.lastIndexOf('.');
  if (dot < 0) return true;
  const lastLabel = remainder.slice(dot + 1);
  return !validTlds.has(lastLabel) || isSecondLevelOf(lastLabel, suffix);
}

/**
 * Splitting the last label with a new dot: a domain typed without any dot (`examplecom`) loses
 * just that dot; otherwise the split-off start must be a second level of the suffix
 * (`comar` → `com.ar`, `cojp` → `co.jp`), never a stray letter (`iit` is `it`, not `i.it`).
 */
function isPlausibleSplit(
  domain: string,
  lastDot: number,
  start: number,
  suffix: string,
  cost: number,
): boolean {
  if (lastDot < 0) return cost === 1 && start >= 3;
  return isSecondLevelOf(domain.slice(lastDot + 1, start), suffix);
}

/** `label.suffix` is a known two-label suffix, or one edit from one (`co.br` for `com.br`). */
function isSecondLevelOf(label: string, suffix: string): boolean {
  if (twoLabelSuffixes.has(`${label}.${suffix}`)) return true;
  const levels = secondLevels.get(suffix);
  return levels !== undefined && closestSecondLevel(label, levels) !== null;
}
