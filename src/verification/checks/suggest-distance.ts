/**
 * Edit distance for typo correction: optimal string alignment (Damerau–Levenshtein where no
 * substring is edited twice), so `gmial` → `gmail` is one edit, not two.
 */

const DOT = 0x2e;
// Longest string compared: popular domains and suffix windows are short; anything longer is
// "too far" by construction (callers compare only strings whose lengths differ by at most `max`).
const MAX_COMPARED = 128;

// Three reusable rows: the hot path allocates nothing.
let rowBefore = new Int32Array(MAX_COMPARED + 1);
let rowPrevious = new Int32Array(MAX_COMPARED + 1);
let rowCurrent = new Int32Array(MAX_COMPARED + 1);

/**
 * OSA distance between `a` and `b`, or `max + 1` as soon as it must exceed `max`.
 * Swapping a dot for a letter costs 2 (a delete and an insert): a mistyped dot is not a typical
 * substitution, and this keeps `examplecom` → `example.com` ahead of `exampl.com`.
 */
export function osaDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.max(n, m);
  if (n > MAX_COMPARED || m > MAX_COMPARED) return max + 1;

  for (let j = 0; j <= m; j++) rowPrevious[j] = j;
  for (let i = 1; i <= n; i++) {
    const ca = a.charCodeAt(i - 1);
    const caBefore = i > 1 ? a.charCodeAt(i - 2) : -1;
    rowCurrent[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const substitution = ca === cb ? 0 : ca === DOT || cb === DOT ? 2 : 1;
      let best = rowPrevious[j - 1]! + substitution;
      const deletion = rowPrevious[j]! + 1;
      if (deletion < best) best = deletion;
      const insertion = rowCurrent[j - 1]! + 1;
      if (insertion < best) best = insertion;
      if (j > 1 && ca !== cb && ca === b.charCodeAt(j - 2) && caBefore === cb) {
        const transposition = rowBefore[j - 2]! + 1;
        if (transposition < best) best = transposition;
      }
      rowCurrent[j] = best;
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max) return max + 1;
    const spare = rowBefore;
    rowBefore = rowPrevious;
    rowPrevious = rowCurrent;
    rowCurrent = spare;
  }
  const distance = rowPrevious[m]!;
  return distance > max ? max + 1 : distance;
}

/** A 32-bit set of the characters in `s` (letters a–z, digits folded onto 26–31): a cheap pre-filter. */
export function characterMask(s: string): number {
  let mask = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) mask |= 1 << (c - 0x61);
    else mask |= 1 << (26 + (c % 6));
  }
  return mask;
}

/** Number of bits set in a 32-bit integer. */
export function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
