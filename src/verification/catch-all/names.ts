/**
 * Given names and surnames from `data/person-names.json`: which words of a local part are names.
 * See the file's `_comment` for its sources.
 */
import nameData from '../data/person-names.json' with { type: 'json' };

const GIVEN: ReadonlySet<string> = new Set(nameData.given);
const SURNAMES: ReadonlySet<string> = new Set(nameData.surnames);

/** Whether a folded word is a listed given name. */
export function isGivenName(word: string): boolean {
  return GIVEN.has(word);
}

/** Whether a folded word is a listed surname. */
export function isSurname(word: string): boolean {
  return SURNAMES.has(word);
}

/** Every listed name, given names first: the training words of the gibberish measure's bigram table. */
export function listedNames(): readonly string[] {
  return [...nameData.given, ...nameData.surnames];
}
