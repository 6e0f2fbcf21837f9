/**
 * Builds the labelled catch-all corpus of tests/fixtures/catch-all/ (tuning.jsonl, held-out.jsonl):
 * synthetic catch-all domains, each with a company naming pattern, employees whose addresses follow
 * it (label 1) and addresses nobody has (label 0). Deterministic (seeded PRNG), so the files are
 * reproducible:
 *
 *   node --import tsx scripts/build-catch-all-corpus.ts           # (re)writes both files
 *   node --import tsx scripts/build-catch-all-corpus.ts --check   # exits 1 if either is stale
 *
 * The two splits use different seeds and different domains; the model's weights were set looking
 * at the tuning split only, and the benchmark reports the held-out one. What the generator assumes
 * (how often each kind of address appears, how provider and posture relate to the share of real
 * addresses, how bounces arise) is written in tests/fixtures/catch-all/README.md: the figures
 * measure the model against these assumptions, not against real mail.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CorpusAddress, CorpusDomain } from '../bench/catch-all.ts';
import { mulberry32 } from '../bench/random.ts';
import listed from '../src/verification/data/person-names.json' with { type: 'json' };
import unlisted from '../tests/fixtures/catch-all/unlisted-names.json' with { type: 'json' };

const FOLDER = 'tests/fixtures/catch-all';
const SPLITS = [
  { name: 'tuning', seed: 0x5eed_0001, prefix: 't', domains: 30 },
  { name: 'held-out', seed: 0x5eed_0002, prefix: 'h', domains: 30 },
] as const;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
/** Picks a key of `weights` with probability proportional to its weight. */
function weighted<K extends string>(random: Random, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as [K, number][];
  let roll = random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, weight] of entries) {
    roll -= weight;
    if (roll < 0) return key;
  }
  return entries[entries.length - 1]![0];
}

/** Company naming patterns and how common each is (a guess from what B2B lists show). */
const PATTERN_WEIGHTS = {
  'first.last': 34,
  flast: 18,
  'f.last': 8,
  firstlast: 8,
  first: 8,
  first_last: 5,
  'first-last': 3,
  'last.first': 4,
  firstl: 4,
  'first.l': 3,
  lastf: 2,
  last: 3,
} as const;
type Pattern = keyof typeof PATTERN_WEIGHTS;

interface Person {
  given: string;
  surname: string;
}

function render(pattern: Pattern, person: Person): string {
  const { given: first, surname: last } = person;
  const f = first[0]!;
  const l = last[0]!;
  switch (pattern) {
    case 'first.last':
      return `${first}.${last}`;
    case 'flast':
      return `${f}${last}`;
    case 'f.last':
      return `${f}.${last}`;
    case 'firstlast':
      return `${first}${last}`;
    case 'first':
      return first;
    case 'first_last':
      return `${first}_${last}`;
    case 'first-last':
      return `${first}-${last}`;
    case 'last.first':
      return `${last}.${first}`;
    case 'firstl':
      return `${first}${l}`;
    case 'first.l':
      return `${first}.${l}`;
    case 'lastf':
      return `${last}${f}`;
    case 'last':
      return last;
  }
}

/** A person; about a third of given names and surnames are ones the model's name lists lack. */
function person(random: Random): Person {
  return {
    given: random() < 0.7 ? pick(random, listed.given) : pick(random, unlisted.given),
    surname: random() < 0.65 ? pick(random, listed.surnames) : pick(random, unlisted.surnames),
  };
}

const ROLES = ['info', 'sales', 'contact', 'support', 'hello', 'office', 'billing', 'hr', 'jobs'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const KEY_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const COMPANY_WORDS = [
  'north',
  'river',
  'stone',
  'bright',
  'oak',
  'summit',
  'harbor',
  'cedar',
  'falcon',
  'meadow',
  'iron',
  'silver',
  'blue',
  'granite',
  'maple',
  'pioneer',
  'atlas',
  'beacon',
  'crest',
  'delta',
  'ember',
  'fjord',
  'glacier',
  'horizon',
  'juniper',
  'keystone',
  'lumen',
  'mosaic',
  'nimbus',
  'orbit',
  'prairie',
  'quarry',
];
const COMPANY_KINDS = ['tools', 'labs', 'logistics', 'foods', 'legal', 'media', 'health', 'capital', 'works'];

/** Fake kinds and their shares among the addresses nobody has. */
const FAKE_WEIGHTS = {
  /** A plausible person in the domain's own pattern who does not work there: guessed addresses. */
  guessed: 25,
  random: 18,
  other_pattern: 20,
  typo: 15,
  mash: 10,
  numeric: 12,
} as const;

function randomLetters(random: Random, length: number, digits: boolean): string {
  let text = pick(random, [...LETTERS]);
  for (let i = 1; i < length; i++) {
    text += digits && random() < 0.25 ? String(between(random, 0, 9)) : pick(random, [...LETTERS]);
  }
  return text;
}

function keyboardMash(random: Random): string {
  const row = pick(random, KEY_ROWS);
  let text = '';
  let at = between(random, 0, row.length - 1);
  const length = between(random, 5, 10);
  while (text.length < length) {
    text += row[at]!;
    at = Math.min(row.length - 1, Math.max(0, at + pick(random, [-1, 1, 1, 2])));
    if (random() < 0.15) at = between(random, 0, row.length - 1);
  }
  return text;
}

/** One edit after the first letter: a swap, a dropped, doubled or replaced letter. */
function typo(random: Random, text: string): string {
  if (text.length < 4) return text + pick(random, [...LETTERS]);
  const at = between(random, 1, text.length - 2);
  switch (between(random, 0, 3)) {
    case 0:
      return text.slice(0, at) + text[at + 1] + text[at] + text.slice(at + 2);
    case 1:
      return text.slice(0, at) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + text[at] + text.slice(at);
    default:
      return text.slice(0, at) + pick(random, [...LETTERS]) + text.slice(at + 1);
  }
}

function numericJunk(random: Random): string {
  const form = between(random, 0, 2);
  if (form === 0) return String(between(random, 1000, 99999999));
  if (form === 1)
    return `${randomLetters(random, between(random, 1, 3), false)}${between(random, 1000, 999999)}`;
  return `${pick(random, ['user', 'test', 'mail', 'acc'])}${between(random, 100, 99999)}`;
}

function fakeAddress(random: Random, pattern: Pattern, real: readonly string[]): CorpusAddress {
  const kind = weighted(random, FAKE_WEIGHTS);
  let localPart: string;
  switch (kind) {
    case 'guessed':
      localPart = render(pattern, person(random));
      break;
    case 'random':
      localPart = randomLetters(random, between(random, 6, 14), random() < 0.3);
      break;
    case 'other_pattern': {
      const others = (Object.keys(PATTERN_WEIGHTS) as Pattern[]).filter((p) => p !== pattern);
      localPart = render(pick(random, others), person(random));
      break;
    }
    case 'typo':
      localPart = typo(random, pick(random, real));
      break;
    case 'mash':
      localPart = keyboardMash(random);
      break;
    case 'numeric':
      localPart = numericJunk(random);
      break;
  }
  return { localPart, label: 0, kind };
}

const PROVIDERS = {
  mailbox_host: ['google', 'microsoft', 'zoho'],
  security_gateway: ['proofpoint', 'mimecast', 'barracuda'],
} as const;
const POSTURES: CorpusDomain['posture'][] = [
  { spf: 'sane', dmarc: 'reject' },
  { spf: 'sane', dmarc: 'quarantine' },
  { spf: 'sane', dmarc: 'none' },
  { spf: 'sane', dmarc: 'absent' },
  { spf: 'permissive', dmarc: 'absent' },
  { spf: 'absent', dmarc: 'absent' },
  null,
];

function buildDomain(random: Random, prefix: string, index: number): CorpusDomain {
  const domain = `${prefix}${String(index).padStart(2, '0')}-${pick(random, COMPANY_WORDS)}${pick(random, COMPANY_KINDS)}.test`;
  const pattern = weighted(random, PATTERN_WEIGHTS);
  const kind = weighted(random, { mailbox_host: 5, security_gateway: 3, none: 2 });
  const provider =
    kind === 'none'
      ? random() < 0.5
        ? null
        : { id: 'unknown', kind: null }
      : { id: pick(random, PROVIDERS[kind]), kind };
  const posture = pick(random, POSTURES);
  // Assumed: lists hold more made-up addresses at domains behind gateways and at domains with no
  // mail posture (parked or neglected), fewer at mailbox hosts; each domain varies around that.
  let realShare = kind === 'mailbox_host' ? 0.72 : kind === 'security_gateway' ? 0.5 : 0.6;
  if (posture?.spf === 'absent') realShare -= 0.1;
  if (posture?.dmarc === 'reject' || posture?.dmarc === 'quarantine') realShare += 0.05;
  realShare = Math.min(0.9, Math.max(0.2, realShare + (random() - 0.5) * 0.3));

  const employees = new Map<string, Person>();
  const headcount = between(random, 30, 140);
  while (employees.size < headcount) {
    const someone = person(random);
    let localPart = render(pattern, someone);
    // A second person with the same address gets a digit, as mail admins do.
    for (let n = 2; employees.has(localPart); n++) localPart = `${render(pattern, someone)}${n}`;
    employees.set(localPart, someone);
  }
  const staff = [...employees.keys()];
  // Some domains appear only a few times in a list: no pattern can be seen there.
  const listSize = random() < 0.2 ? between(random, 2, 5) : between(random, 15, 60);
  const addresses: CorpusAddress[] = [];
  const used = new Set<string>();
  const add = (address: CorpusAddress) => {
    if (used.has(address.localPart) || employees.has(address.localPart) !== (address.label === 1)) return;
    used.add(address.localPart);
    addresses.push(address);
  };
  for (let guard = 0; addresses.length < listSize && guard < listSize * 20; guard++) {
    if (random() < realShare) {
      if (random() < 0.06) {
        const role = pick(random, ROLES);
        if (!used.has(role)) {
          used.add(role);
          addresses.push({ localPart: role, label: 1, kind: 'role' });
        }
      } else add({ localPart: pick(random, staff), label: 1, kind: 'employee' });
    } else add(fakeAddress(random, pattern, staff));
  }
  // Deliveries recorded in the account: some employees, outside this list or in it.
  const confirmed =
    random() < 0.5
      ? []
      : [...new Set(Array.from({ length: between(random, 1, 8) }, () => pick(random, staff)))];
  return {
    domain,
    pattern,
    provider,
    posture,
    feedback: simulatedFeedback(random, kind, realShare),
    confirmed,
    addresses,
  };
}

/**
 * Past sends recorded in the account: each to a real address with the domain's real share, else to
 * a made-up one, which bounces more often behind a gateway (it accepts, then the real server
 * refuses) than at a mailbox host (whose catch-all mailbox takes it).
 */
function simulatedFeedback(random: Random, kind: string, realShare: number): CorpusDomain['feedback'] {
  if (random() < 0.4) return null;
  const sends = random() < 0.5 ? between(random, 2, 12) : between(random, 30, 300);
  const bounceIfFake = kind === 'security_gateway' ? 0.8 : kind === 'mailbox_host' ? 0.3 : 0.5;
  let hardBounces = 0;
  for (let i = 0; i < sends; i++) {
    if (random() >= realShare && random() < bounceIfFake) hardBounces++;
  }
  return { hardBounces, delivered: sends - hardBounces };
}

let stale = false;
for (const split of SPLITS) {
  const random = mulberry32(split.seed);
  const lines: string[] = [];
  for (let i = 1; i <= split.domains; i++) lines.push(JSON.stringify(buildDomain(random, split.prefix, i)));
  const text = `${lines.join('\n')}\n`;
  const file = `${FOLDER}/${split.name}.jsonl`;
  const count = lines.reduce((sum, line) => sum + (JSON.parse(line) as CorpusDomain).addresses.length, 0);
  if (process.argv.includes('--check')) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    console.log(current === text ? `${file} is up to date` : `${file} is stale: run this script`);
    if (current !== text) stale = true;
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${file}: ${split.domains} domains, ${count} addresses`);
  }
}
if (stale) process.exitCode = 1;
