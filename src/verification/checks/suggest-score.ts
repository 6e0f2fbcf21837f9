/**
 * How a candidate correction is weighed. The edit distance decides; among candidates equally
 * close, the more used target wins, and one that keeps the first letter wins (typists rarely
 * get the first letter wrong). Both weights together stay below one edit, so they only break ties.
 */

const FIRST_LETTER_PENALTY = 0.15;
const RANK_WEIGHT = 0.1;

/** Tie-breaking weight of a target's rank (0 = most used): grows slowly, at most ~0.8. */
export function rankWeight(rank: number): number {
  return RANK_WEIGHT * Math.log2(rank + 1);
}

/** Penalty when the first letters (dots skipped) of what was typed and of the target differ. */
export function firstLetterPenalty(typed: string, target: string): number {
  return firstLetter(typed) === firstLetter(target) ? 0 : FIRST_LETTER_PENALTY;
}

function firstLetter(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x2e) return c;
  }
  return -1;
}

/**
 * How many edits a name may be from a popular second-level name and still be corrected to it.
 * Short names sit among many real ones (`live`: `love`, `life`, `line`), so they get less room;
 * only the giant providers' typos are common enough to allow two edits, or any on three letters.
 */
export function maxEdits(major: boolean, targetLength: number): number {
  if (targetLength <= 3) return major ? 1 : 0;
  if (targetLength <= 4) return 1;
  if (targetLength <= 5) return major ? 2 : 1;
  return 2;
}

const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const NEIGHBOURS = buildNeighbours();

/**
 * Whether a correction at `distance` edits from what was typed looks like a typo and not like
 * another real name:
 * - two letters added to a whole name make a new word (`dogmail` is not `gmail`);
 * - on a short name, a replaced letter must be a neighbouring key (`lime` is not `live`);
 * - a different first letter must be a neighbouring key (`uahoo` → `yahoo`, not `wahoo`), or a
 *   first letter left out (`otmail`); a letter added in front (`gmsn`) or two edits that change
 *   the first letter (`aho` → `yahoo`) are accepted only towards a giant provider.
 */
export function looksLikeTypo(typed: string, target: string, distance: number, major: boolean): boolean {
  if (distance === 0) return false;
  if (distance >= 2 && typed.length >= target.length + 2) return false;
  if (target.length <= 4 && !replacedLettersAreNeighbours(typed, target)) return false;
  const t0 = typed.charCodeAt(0);
  const g0 = target.charCodeAt(0);
  if (t0 === g0) return true;
  if (typed.length === target.length && typed.charCodeAt(1) === target.charCodeAt(1)) {
    return distance === 1 && isNeighbour(t0, g0);
  }
  if (distance === 1 && typed.length < target.length) return true;
  return major && (distance === 1 || typed.length < target.length);
}

/** Two keys next to each other on a QWERTY keyboard. */
function isNeighbour(a: number, b: number): boolean {
  return NEIGHBOURS.get(a)?.has(b) ?? false;
}

/** Same length and one differing letter: that replacement is a neighbouring key. */
function replacedLettersAreNeighbours(typed: string, target: string): boolean {
  if (typed.length !== target.length) return true;
  let differing = -1;
  for (let i = 0; i < typed.length; i++) {
    if (typed.charCodeAt(i) === target.charCodeAt(i)) continue;
    if (differing >= 0) return true; // more than one: a swap or two edits, judged elsewhere
    differing = i;
  }
  return differing < 0 || isNeighbour(typed.charCodeAt(differing), target.charCodeAt(differing));
}

function buildNeighbours(): Map<number, Set<number>> {
  const neighbours = new Map<number, Set<number>>();
  const link = (a: string | undefined, b: string | undefined): void => {
    if (a === undefined || b === undefined) return;
    const codeA = a.charCodeAt(0);
    const codeB = b.charCodeAt(0);
    if (!neighbours.has(codeA)) neighbours.set(codeA, new Set());
    if (!neighbours.has(codeB)) neighbours.set(codeB, new Set());
    neighbours.get(codeA)!.add(codeB);
    neighbours.get(codeB)!.add(codeA);
  };
  KEYBOARD_ROWS.forEach((row, r) => {
    const below = KEYBOARD_ROWS[r + 1] ?? '';
    for (let i = 0; i < row.length; i++) {
      link(row[i], row[i + 1]);
      // Rows are staggered: key i touches keys i-1 and i of the row below.
      link(row[i], below[i - 1]);
      link(row[i], below[i]);
    }
  });
  return neighbours;
}
