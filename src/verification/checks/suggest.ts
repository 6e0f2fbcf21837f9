/**
 * suggestions: typo correction of the domain against popular mail domains, their
 * second-level names and the popular TLDs, never for a known live domain. Runs for every
 * address: a known domain costs one Set lookup, and answers for other domains are remembered
 * (domains repeat a lot in real lists). The algorithm is in suggest-engine.ts.
 */
import type { SuggestionCheck } from '../report.ts';
import { knownDomains } from './suggest-data.ts';
import { correctDomain } from './suggest-engine.ts';

// Two generations of answers: lookups and inserts stay O(1), and when the young generation is
// full it becomes the old one, so memory is bounded by twice this number of domains.
const GENERATION_SIZE = 10_000;
let recent = new Map<string, string | null>();
let older = new Map<string, string | null>();

/** The corrected domain for a lower-case ASCII domain, or null when it needs none. */
export function suggestDomain(asciiDomain: string): string | null {
  if (knownDomains.has(asciiDomain)) return null;
  const remembered = recent.get(asciiDomain);
  if (remembered !== undefined) return remembered;
  const fromOlder = older.get(asciiDomain);
  const answer = fromOlder !== undefined ? fromOlder : correctDomain(asciiDomain);
  remember(asciiDomain, answer);
  return answer;
}

/** The suggestions stage: whole corrected addresses (`jane@gmail.com` for `jane@gmial.com`). */
export function checkSuggestions(localPart: string, asciiDomain: string): SuggestionCheck {
  const corrected = suggestDomain(asciiDomain);
  return { suggestions: corrected === null ? [] : [`${localPart}@${corrected}`] };
}

function remember(domain: string, answer: string | null): void {
  if (recent.size >= GENERATION_SIZE) {
    older = recent;
    recent = new Map();
  }
  recent.set(domain, answer);
}
