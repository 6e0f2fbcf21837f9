/**
 * Folds a local part into the form the catch-all model reads: bounded in length, quotes and `+tag`
 * removed, lower case, Latin diacritics folded (`müller` → `muller`).
 */

/** Characters read of any local part: RFC 5321 allows 64 octets; the rest of a 1 MB string is ignored. */
export const MAX_READ_LENGTH = 128;

const COMBINING_MARKS = /[\u0300-\u036f]/g;

/** The folded local part: what the pattern, name and gibberish measures all look at. */
export function foldForModel(localPart: string): string {
  // Slice before any whole-string work so a hostile input costs no more than a short one.
  let text = localPart.slice(0, MAX_READ_LENGTH * 2);
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1);
  const plus = text.indexOf('+');
  if (plus > 0) text = text.slice(0, plus);
  text = text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase();
  // Array.from keeps surrogate pairs whole when cutting.
  return Array.from(text).slice(0, MAX_READ_LENGTH).join('');
}

/** The parts of a folded local part between `.`, `_` and `-`, with the separators between them. */
export interface Tokens {
  words: string[];
  separators: string[];
  /** Digits cut from the end (`jane.doe2` → `2`), often how a second person of the same name is told apart. */
  trailingDigits: string;
}

/** Splits a folded local part into words and separators (a run of separators counts as its first). */
export function tokenize(folded: string): Tokens {
  const match = /^(.*?)(\d{1,3})$/.exec(folded);
  const cut = match !== null && /[a-z]/.test(match[1]!);
  const body = cut ? match[1]! : folded;
  const words: string[] = [];
  const separators: string[] = [];
  let pending: string | null = null;
  for (const part of body.split(/([._-]+)/)) {
    if (part === '') continue;
    if (/^[._-]/.test(part)) {
      if (words.length > 0) pending = part[0]!;
      continue;
    }
    if (pending !== null) separators.push(pending);
    pending = null;
    words.push(part);
  }
  return { words, separators, trailingDigits: cut ? match[2]! : '' };
}

/** Share of digits among the letters and digits of a folded local part (0 when it has neither). */
export function digitShare(folded: string): { digits: number; share: number } {
  let digits = 0;
  let alnum = 0;
  for (const char of folded) {
    if (char >= '0' && char <= '9') digits++;
    if (/\p{L}|\p{N}/u.test(char)) alnum++;
  }
  return { digits, share: alnum === 0 ? 0 : digits / alnum };
}
