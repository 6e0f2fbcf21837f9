/**
 * Building blocks of the hostile-input generators: a seeded PRNG (so every failure can be replayed
 * from its seed) and generators of awkward strings and JSON values.
 */

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same cases on every machine. */
export class Prng {
  #state: number;

  constructor(readonly seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }
}

/** Awkward code units and sequences that addresses meet in the wild, or that break naive code. */
export const AWKWARD_PIECES: readonly string[] = [
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\udc00\ud800', // reversed pair
  '😀',
  '👩‍👩‍👧', // ZWJ sequence
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
  'שלום',
  'مرحبا',
  'e\u0301', // combining acute
  'a\u0300\u0301\u0302\u0303\u0304', // stacked combining marks
  '\u0000',
  '\u0001\u001f\u007f',
  '\u00a0', // no-break space
  '\u2028\u2029',
  '\ufeff',
  '\uff20', // FULLWIDTH COMMERCIAL AT
  '＠',
  'ß',
  'İ',
  'Ⅻ',
  '\r\n',
  '\t',
  '"',
  '\\',
  '<script>',
  "'; DROP TABLE usage; --",
  '%00',
  '\u0024{jndi:ldap://x}', // log4shell-style lookup
  '..',
  '@@',
  '[',
  ']',
  'xn--',
  'xn--zz',
];

const ASCII_LOCAL = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+_-';

/** A short plain ASCII local part. */
export function plainLocal(prng: Prng): string {
  let out = '';
  const length = prng.int(1, 12);
  for (let i = 0; i < length; i++) out += ASCII_LOCAL[prng.int(0, 25)];
  return out;
}

/** A string mixing plain characters with awkward pieces. */
export function awkwardString(prng: Prng, pieces = prng.int(1, 6)): string {
  let out = '';
  for (let i = 0; i < pieces; i++) out += prng.chance(0.5) ? prng.pick(AWKWARD_PIECES) : plainLocal(prng);
  return out;
}

/** An address-like string: awkward local part and/or domain, sometimes no `@` at all. */
export function awkwardAddress(prng: Prng, domains: readonly string[]): string {
  const local = prng.chance(0.6) ? awkwardString(prng) : plainLocal(prng);
  const domain = prng.chance(0.6) ? prng.pick(domains) : `${awkwardString(prng, 2)}.${prng.pick(domains)}`;
  switch (prng.int(0, 5)) {
    case 0:
      return `${local}${domain}`; // no @
    case 1:
      return `${local}@${awkwardString(prng)}`;
    case 2:
      return `  ${local}@${domain}\t`;
    default:
      return `${local}@${domain}`;
  }
}

/** Any JSON value but a string (the wrong types for `email`), some of them large or nested. */
export function nonStringValue(prng: Prng, depth = 0): unknown {
  switch (prng.int(0, depth > 2 ? 6 : 9)) {
    case 0:
      return prng.int(-1e9, 1e9);
    case 1:
      return prng.pick([0, -0, 1.5e308, -1, 1e-300, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return null;
    case 3:
      return true;
    case 4:
      return false;
    case 5:
      return {};
    case 6:
      return [];
    case 7:
      return {
        email: prng.chance(0.5) ? `${plainLocal(prng)}@example.com` : nonStringValue(prng, depth + 1),
      };
    case 8:
      return [`${plainLocal(prng)}@example.com`, nonStringValue(prng, depth + 1), 'x'];
    default:
      return Array.from({ length: prng.int(1, 4) }, () => nonStringValue(prng, depth + 1));
  }
}

/** `[[[…]]]` nested `depth` times: tiny on the wire, deep in memory. */
export function deepArray(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** `{"a":{"a":…1…}}` nested `depth` times. */
export function deepObject(depth: number, key = 'a'): string {
  return `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`;
}
