/**
 * Naming patterns of local parts (first.last, flast, f.last, firstlast, first, last.first...):
 * which ones a local part could follow, and which one dominates among a domain's other addresses.
 * Names from the listed-names file make a shape specific (`jsmith` is flast, `johnsmith` is
 * firstlast); an unlisted name leaves every pattern of its shape possible.
 */
import { tokenize } from './local-part.ts';
import { isGivenName, isSurname } from './names.ts';
import { DOMINANCE } from './weights.ts';

type Role = 'first' | 'last' | 'f' | 'l' | 'm';

/** Role sequences a person's address is built from; the pattern id joins them with the separators. */
const ROLE_SEQUENCES: readonly (readonly Role[])[] = [
  ['first', 'last'],
  ['f', 'last'],
  ['first', 'l'],
  ['last', 'first'],
  ['last', 'f'],
  ['first', 'm', 'last'],
  ['f', 'm', 'last'],
  ['first'],
  ['last'],
];

/** How sure the shape is: every name word listed, some, or none (shape only). */
export type ShapeEvidence = 'names' | 'partial' | 'structure';

/** The patterns a local part could follow and how much the name lists back them. */
export interface LocalPartShape {
  /** Pattern ids (`first.last`, `flast`...); empty when no person's pattern fits (digits inside, 4+ words). */
  patterns: ReadonlySet<string>;
  evidence: ShapeEvidence;
  /** How many words were listed names in the role the best patterns give them. */
  listedWords: number;
}

const NO_SHAPE: LocalPartShape = { patterns: new Set(), evidence: 'structure', listedWords: 0 };
const NAME_WORD = /^[\p{L}]+$/u;

/** The patterns a folded local part could follow (pure; trailing digits are ignored). */
export function shapeOf(folded: string): LocalPartShape {
  const { words, separators } = tokenize(folded);
  if (words.length === 0 || words.length > 3 || !words.every((word) => NAME_WORD.test(word))) return NO_SHAPE;
  const candidates: Candidate[] = [];
  if (words.length === 1) {
    candidates.push(...singleWordCandidates(words[0]!));
  } else {
    for (const roles of ROLE_SEQUENCES) {
      if (roles.length !== words.length) continue;
      const score = scoreRoles(words, roles);
      if (score !== null) candidates.push({ pattern: joinRoles(roles, separators), ...score });
    }
  }
  return bestOf(candidates);
}

interface Candidate {
  pattern: string;
  /** Listed in its role +1, listed only in the other role −1, unlisted 0. */
  score: number;
  listed: number;
  nameWords: number;
}

function joinRoles(roles: readonly Role[], separators: readonly string[]): string {
  return roles.map((role, i) => (i === 0 ? role : `${separators[i - 1] ?? ''}${role}`)).join('');
}

/** Every way a word without separators splits into roles: `jsmith` → f + last, `johnsmith` → first + last. */
function singleWordCandidates(word: string): Candidate[] {
  const candidates: Candidate[] = [];
  for (const roles of ROLE_SEQUENCES) {
    if (roles.length === 1) {
      const score = scoreRoles([word], roles);
      if (score !== null) candidates.push({ pattern: roles[0]!, ...score });
      continue;
    }
    if (roles.length !== 2) continue;
    for (let cut = 1; cut < word.length; cut++) {
      const score = scoreRoles([word.slice(0, cut), word.slice(cut)], roles);
      if (score !== null) candidates.push({ pattern: roles.join(''), ...score });
    }
  }
  return candidates;
}

/** How well words fit roles, or null when one cannot (an initial must be one letter, a name two or more). */
function scoreRoles(words: readonly string[], roles: readonly Role[]): Omit<Candidate, 'pattern'> | null {
  let score = 0;
  let listed = 0;
  let nameWords = 0;
  for (let i = 0; i < roles.length; i++) {
    const word = words[i]!;
    const role = roles[i]!;
    if (role === 'f' || role === 'l' || role === 'm') {
      if (word.length !== 1) return null;
      continue;
    }
    if (word.length < 2) return null;
    nameWords++;
    const inRole = role === 'first' ? isGivenName(word) : isSurname(word);
    const inOther = role === 'first' ? isSurname(word) : isGivenName(word);
    if (inRole) {
      score++;
      listed++;
    } else if (inOther) score--;
  }
  return { score, listed, nameWords };
}

/** Keeps the candidates with the best score: the shape the name lists support most. */
function bestOf(candidates: readonly Candidate[]): LocalPartShape {
  if (candidates.length === 0) return NO_SHAPE;
  const best = Math.max(...candidates.map((c) => c.score));
  const kept = candidates.filter((c) => c.score === best);
  const top = kept.reduce((a, b) => (b.listed > a.listed ? b : a));
  const evidence: ShapeEvidence =
    top.listed === 0
      ? 'structure'
      : top.listed === top.nameWords && best === top.listed
        ? 'names'
        : 'partial';
  return { patterns: new Set(kept.map((c) => c.pattern)), evidence, listedWords: top.listed };
}

/** The pattern most of a domain's peers follow, and how many follow it. */
export interface DominantPattern {
  pattern: string;
  /** Weighted share of peers whose shape admits the pattern (0–1). */
  share: number;
  /** Peers read (each counted once). */
  peers: number;
}

/**
 * The dominant pattern among peers' folded local parts, or null when there are too few peers or
 * none dominates. A peer whose shape admits several patterns lends each a fraction of its weight to
 * pick the dominant one, and counts in full for each when the share is measured.
 */
export function dominantPattern(
  peers: readonly { folded: string; confirmed: boolean }[],
): DominantPattern | null {
  const support = new Map<string, number>();
  const admits = new Map<string, number>();
  let total = 0;
  for (const peer of peers) {
    const weight = peer.confirmed ? DOMINANCE.confirmedPeerWeight : 1;
    total += weight;
    const { patterns } = shapeOf(peer.folded);
    for (const pattern of patterns) {
      support.set(pattern, (support.get(pattern) ?? 0) + weight / patterns.size);
      admits.set(pattern, (admits.get(pattern) ?? 0) + weight);
    }
  }
  if (total < DOMINANCE.minPeerWeight) return null;
  let best: string | null = null;
  for (const [pattern, value] of support) {
    const current = best === null ? -1 : support.get(best)!;
    if (value > current || (value === current && pattern < best!)) best = pattern;
  }
  if (best === null || support.get(best)! < 1) return null;
  const share = admits.get(best)! / total;
  return share >= DOMINANCE.minShare ? { pattern: best, share, peers: peers.length } : null;
}
