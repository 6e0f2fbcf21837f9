/**
 * A small gibberish measure for local parts, 0 (reads like a name) to 1 (keyboard mash or random
 * letters), from three plain features, the largest of which wins:
 * - letter pairs: the mean log-likelihood of the word's letter pairs (with start and end) under a
 *   bigram table computed, at the first measure, from the listed given names and surnames and
 *   the role names (`info`, `support`: words people do use as mailboxes); scaled so that the
 *   training words' 90th percentile is 0 and random letters' expected value is 1;
 *   the best of the words as they are and without a glued-on initial (`jwilson`, `maryj`);
 * - consonant runs: `sdfghj` has six in a row, names rarely more than four (`schm`, `ngstr`);
 * - keyboard rows: the share of neighbouring letters that sit side by side on a QWERTY row
 *   (`asdf`, `qwerty`, `jkjk`).
 * Letters outside a–z after folding (Greek, Cyrillic, CJK...) are not judged: the table knows
 * Latin names only, and a name in another script must not read as gibberish.
 */
import roleData from '../data/role-names.json' with { type: 'json' };
import { listedNames } from './names.ts';

/** The measure and its parts, each 0–1. */
export interface GibberishMeasure {
  measure: number;
  letterPairs: number;
  consonantRun: number;
  keyboardRows: number;
}

const NOT_JUDGED: GibberishMeasure = { measure: 0, letterPairs: 0, consonantRun: 0, keyboardRows: 0 };
/** Fewer letters than this are too few to judge (`jd`, `bob`). */
const MIN_LETTERS = 4;
/** Add-k smoothing of the bigram table: an unseen pair is rare, not impossible. */
const SMOOTHING = 0.1;
const SYMBOLS = 27; // a–z and the word boundary
const BOUNDARY = 26;
const VOWELS = new Set('aeiouy');
const ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

const KEY_POSITION = new Map<string, { row: number; column: number }>();
ROWS.forEach((keys, row) => {
  for (let column = 0; column < keys.length; column++) KEY_POSITION.set(keys[column]!, { row, column });
});

const code = (char: string) => char.charCodeAt(0) - 97;

/** The bigram table and the scale of its measure: built at the first measure, not at every start. */
interface PairModel {
  /** log P(next | previous) for every pair of symbols, from the training words. */
  logProbability: Float64Array;
  /**
   * The scale of the letter-pair feature: 0 at the training words' 90th percentile (so all but the
   * oddest tenth of real names read 0), 1 at random letters' expected value.
   */
  wordsP90: number;
  random: number;
}

let pairModel: PairModel | undefined;

function model(): PairModel {
  if (pairModel !== undefined) return pairModel;
  /** The words the bigram table learns from: listed names, and role names (stored folded, a–z). */
  const trainingWords: readonly string[] = [
    ...listedNames(),
    ...Object.values(roleData.groups)
      .flat()
      .filter((name) => /^[a-z]+$/.test(name)),
  ];
  const logProbability = bigramTable(trainingWords);
  const values = trainingWords
    .filter((word) => word.length >= MIN_LETTERS)
    .map((word) => meanPairLogLikelihood(logProbability, [word]))
    .sort((a, b) => b - a);
  const wordsP90 = values[Math.floor(values.length * 0.9)] ?? 0;
  pairModel = { logProbability, wordsP90, random: randomLettersMean(logProbability) };
  return pairModel;
}

function bigramTable(trainingWords: readonly string[]): Float64Array {
  const counts = new Float64Array(SYMBOLS * SYMBOLS);
  for (const name of trainingWords) {
    let previous = BOUNDARY;
    for (const char of name) {
      const current = code(char);
      if (current < 0 || current > 25) continue;
      counts[previous * SYMBOLS + current]! += 1;
      previous = current;
    }
    counts[previous * SYMBOLS + BOUNDARY]! += 1;
  }
  const table = new Float64Array(SYMBOLS * SYMBOLS);
  for (let previous = 0; previous < SYMBOLS; previous++) {
    let rowTotal = 0;
    for (let next = 0; next < SYMBOLS; next++) rowTotal += counts[previous * SYMBOLS + next]!;
    for (let next = 0; next < SYMBOLS; next++) {
      const count = counts[previous * SYMBOLS + next]!;
      table[previous * SYMBOLS + next] = Math.log((count + SMOOTHING) / (rowTotal + SMOOTHING * SYMBOLS));
    }
  }
  return table;
}

/** Mean log-likelihood of a word's letter pairs, start and end included. */
function meanPairLogLikelihood(logProbability: Float64Array, words: readonly string[]): number {
  let sum = 0;
  let pairs = 0;
  for (const word of words) {
    let previous = BOUNDARY;
    for (const char of word) {
      const current = code(char);
      sum += logProbability[previous * SYMBOLS + current]!;
      pairs++;
      previous = current;
    }
    sum += logProbability[previous * SYMBOLS + BOUNDARY]!;
    pairs++;
  }
  return pairs === 0 ? 0 : sum / pairs;
}

/** The expected mean log-likelihood of random letters. */
function randomLettersMean(logProbability: Float64Array): number {
  // Expected mean over an 8-letter random word: 1 start pair, 7 inner pairs, 1 end pair.
  let start = 0;
  let end = 0;
  let inner = 0;
  for (let a = 0; a < 26; a++) {
    start += logProbability[BOUNDARY * SYMBOLS + a]! / 26;
    end += logProbability[a * SYMBOLS + BOUNDARY]! / 26;
    for (let b = 0; b < 26; b++) inner += logProbability[a * SYMBOLS + b]! / (26 * 26);
  }
  return (start + 7 * inner + end) / 9;
}

const clamp01 = (value: number) => (value < 0 ? 0 : value > 1 ? 1 : value);

/** The gibberish measure of a folded local part (see the module comment); 0 when not judged. */
export function gibberishOf(folded: string): GibberishMeasure {
  const words = (folded.match(/\p{L}+/gu) ?? []).filter((word) => word.length > 1);
  let letters = 0;
  let foreign = 0;
  for (const word of words) {
    for (const char of word) {
      letters++;
      if (char < 'a' || char > 'z') foreign++;
    }
  }
  if (letters < MIN_LETTERS || foreign > 0) return NOT_JUDGED;
  const { logProbability, wordsP90, random } = model();
  const pairs = Math.max(
    ...initialVariants(words).map((variant) => meanPairLogLikelihood(logProbability, variant)),
  );
  const letterPairs = clamp01((wordsP90 - pairs) / (wordsP90 - random));
  const consonantRun = clamp01((longestConsonantRun(words) - 4) / 2);
  const keyboardRows = letters >= 5 ? clamp01((adjacentKeyShare(words) - 0.35) / 0.4) : 0;
  return {
    measure: Math.max(letterPairs, consonantRun, keyboardRows),
    letterPairs,
    consonantRun,
    keyboardRows,
  };
}

/**
 * The words as they are, and with an initial glued on taken off (`jwilson` → `wilson`, `maryj` →
 * `mary`): flast and firstl addresses start or end with a letter pair no name has.
 */
function initialVariants(words: readonly string[]): string[][] {
  const variants: string[][] = [[...words]];
  const first = words[0]!;
  const last = words[words.length - 1]!;
  if (first.length >= 5) variants.push([first.slice(1), ...words.slice(1)]);
  if (last.length >= 5) variants.push([...words.slice(0, -1), last.slice(0, -1)]);
  return variants;
}

function longestConsonantRun(words: readonly string[]): number {
  let longest = 0;
  for (const word of words) {
    let run = 0;
    for (const char of word) {
      run = VOWELS.has(char) ? 0 : run + 1;
      if (run > longest) longest = run;
    }
    // A word of four or more letters with no vowel at all reads as a mash however short its runs.
    if (word.length >= 4 && ![...word].some((char) => VOWELS.has(char))) longest = Math.max(longest, 6);
  }
  return longest;
}

function adjacentKeyShare(words: readonly string[]): number {
  let pairs = 0;
  let adjacent = 0;
  for (const word of words) {
    for (let i = 1; i < word.length; i++) {
      const a = KEY_POSITION.get(word[i - 1]!);
      const b = KEY_POSITION.get(word[i]!);
      pairs++;
      if (a && b && a.row === b.row && Math.abs(a.column - b.column) === 1) adjacent++;
    }
  }
  return pairs === 0 ? 0 : adjacent / pairs;
}
