/**
 * suggestions: typo correction of the domain against popular mail domains, their
 * second-level names and the popular TLDs, never for a known live domain. Runs for every
 * address: a known domain costs one Set lookup, and answers for other domains are remembered
 * (domains repeat a lot in real lists). The algorithm is in suggest-engine.ts.
 */
import type { SuggestionCheck } from '../report.ts';
import { DomainMemo } from './domain-memo.ts';
import { knownDomains } from './suggest-data.ts';
import { correctDomain } from './suggest-engine.ts';

// Domains with an answer (null: none needed), remembered.
const answers = new DomainMemo<string | null>();

/** The corrected domain for a lower-case ASCII domain, or null when it needs none. */
export function suggestDomain(asciiDomain: string): string | null {
  if (knownDomains.has(asciiDomain)) return null;
  return answers.get(asciiDomain, correctDomain);
}

/** The suggestions stage: whole corrected addresses (`jane@gmail.com` for `jane@gmial.com`). */
export function checkSuggestions(localPart: string, asciiDomain: string): SuggestionCheck {
  const corrected = suggestDomain(asciiDomain);
  return { suggestions: corrected === null ? [] : [`${localPart}@${corrected}`] };
}
