/**
 * Hostile requests for the public API: a fixed list of named edge cases plus seeded random ones
 * (random bytes, truncated and mutated JSON, wrong types, awkward Unicode, wrong content types,
 * methods and credentials). Each case carries what the contract allows for it, so a run checks
 * itself; the same seed always gives the same cases.
 */
import {
  LENIENT_AUTH,
  LENIENT_TYPES,
  ODD_PATHS,
  OTHER_METHODS,
  REFUSED_AUTH,
  REFUSED_TYPES,
} from './hostile-catalog.ts';
import { alsoAllow, type Endpoint, type Expectation, expectFromJsonBody } from './hostile-oracle.ts';
import { awkwardAddress, nonStringValue, Prng, plainLocal } from './hostile-values.ts';

/** How a case authenticates: with the test key, with nothing, or with a header built around it. */
export type AuthMode = { kind: 'valid' } | { kind: 'none' } | { kind: 'header'; template: string };

/** One hostile request and what the contract allows for it. */
export interface HostileCase {
  id: number;
  kind: string;
  endpoint: Endpoint | 'other';
  method: string;
  url: string;
  /** Content-Type; undefined sends none. */
  contentType: string | undefined;
  auth: AuthMode;
  body: Buffer | undefined;
  expect: Expectation;
}

export const PATHS: Readonly<Record<Endpoint, string>> = {
  verify: '/api/v1/verify',
  bulk: '/api/v1/verify/bulk',
};

/** Domains the test world answers for, so valid-looking addresses do not wait on real DNS. */
export interface GeneratorOptions {
  domains: readonly string[];
}

type CaseDraft = Omit<HostileCase, 'id'>;
const JSON_TYPE = 'application/json';
const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** An authenticated JSON request whose expectation comes from its body. */
export function jsonCase(kind: string, endpoint: Endpoint, body: Buffer): CaseDraft {
  const url = PATHS[endpoint];
  return {
    kind,
    endpoint,
    method: 'POST',
    url,
    contentType: JSON_TYPE,
    auth: { kind: 'valid' },
    body,
    expect: expectFromJsonBody(endpoint, body),
  };
}

/** A valid body for the endpoint, as text. */
export function validBody(prng: Prng, endpoint: Endpoint, domains: readonly string[]): string {
  const address = () => `${plainLocal(prng)}@${prng.pick(domains)}`;
  if (endpoint === 'verify') return JSON.stringify({ email: address() });
  return JSON.stringify({ emails: Array.from({ length: prng.int(1, 8) }, address) });
}

/**
 * Encodes a string as generalized UTF-8: lone surrogates become the 3-byte sequences a naive encoder
 * writes (ED A0 80 for U+D800), which are invalid UTF-8 on the wire.
 */
export function wtf8(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      parts.push(Buffer.from([0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]));
    } else parts.push(Buffer.from(char, 'utf8'));
  }
  return Buffer.concat(parts);
}

function refusedContentType(prng: Prng, domains: readonly string[]): CaseDraft {
  const endpoint: Endpoint = prng.chance(0.5) ? 'verify' : 'bulk';
  const contentType = prng.pick(REFUSED_TYPES);
  const body = contentType?.startsWith('application/x-www')
    ? utf8(`email=${plainLocal(prng)}%40${prng.pick(domains)}`)
    : utf8(validBody(prng, endpoint, domains));
  return { ...jsonCase('content-type', endpoint, body), contentType, expect: { statuses: [400] } };
}

function lenientContentType(prng: Prng, domains: readonly string[]): CaseDraft {
  const endpoint: Endpoint = prng.chance(0.5) ? 'verify' : 'bulk';
  const draft = jsonCase('content-type-lenient', endpoint, utf8(validBody(prng, endpoint, domains)));
  return { ...draft, contentType: prng.pick(LENIENT_TYPES), expect: alsoAllow(draft.expect, 400) };
}

function badAuth(prng: Prng, domains: readonly string[], next: () => CaseDraft): CaseDraft {
  // Any body at all: credentials are checked first, so the answer is 401 whatever follows.
  const draft = prng.chance(0.5)
    ? jsonCase('auth', 'verify', utf8(validBody(prng, 'verify', domains)))
    : next();
  // An unknown path may be answered 404 before any route's authentication runs.
  // (or 400 for a URL the router cannot decode).
  const refused = draft.endpoint === 'other' ? [400, 401, 404, 405] : [401];
  if (prng.chance(0.2))
    return {
      ...draft,
      kind: `auth-none/${draft.kind}`,
      auth: { kind: 'none' },
      expect: { statuses: refused },
    };
  if (prng.chance(0.2) && draft.endpoint !== 'other') {
    const template = prng.pick(LENIENT_AUTH);
    return {
      ...draft,
      kind: `auth-lenient/${draft.kind}`,
      auth: { kind: 'header', template },
      expect: alsoAllow(draft.expect, 401),
    };
  }
  const template = prng.pick(REFUSED_AUTH);
  return {
    ...draft,
    kind: `auth-refused/${draft.kind}`,
    auth: { kind: 'header', template },
    expect: { statuses: refused },
  };
}

function otherMethodOrPath(prng: Prng, domains: readonly string[]): CaseDraft {
  const body = prng.chance(0.5) ? utf8(validBody(prng, 'verify', domains)) : undefined;
  const onOddPath = prng.chance(0.4);
  const method = onOddPath ? 'POST' : prng.pick(OTHER_METHODS);
  const url = onOddPath ? prng.pick(ODD_PATHS) : prng.pick(Object.values(PATHS));
  // 401 when auth runs before routing, 404/405 otherwise; a path that reaches a real route may
  // also answer as that route would.
  const statuses = onOddPath ? [200, 400, 401, 404, 405, 422] : [204, 400, 401, 404, 405];
  return {
    kind: 'method-path',
    endpoint: 'other',
    method,
    url,
    contentType: body ? JSON_TYPE : undefined,
    auth: { kind: 'valid' },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    expect: { statuses },
  };
}

/** The random part: `count` cases drawn by weight from every generator, all from `seed`. */
export function randomCases(seed: number, count: number, { domains }: GeneratorOptions): HostileCase[] {
  const prng = new Prng(seed);
  const endpoint = (): Endpoint => (prng.chance(0.55) ? 'verify' : 'bulk');
  const generators: Array<[number, () => CaseDraft]> = [
    [10, () => jsonCase('random-bytes', endpoint(), prng.bytes(prng.pick([0, 1, 2, 16, 100, 1000, 4000])))],
    [
      12,
      () => {
        const e = endpoint();
        const text = validBody(prng, e, domains);
        return jsonCase('truncated-json', e, utf8(text.slice(0, prng.int(0, text.length - 1))));
      },
    ],
    [
      12,
      () => {
        const e = endpoint();
        return jsonCase('mutated-json', e, mutate(prng, utf8(validBody(prng, e, domains))));
      },
    ],
    [12, () => jsonCase('email-wrong-type', 'verify', utf8(JSON.stringify({ email: nonStringValue(prng) })))],
    [
      10,
      () =>
        jsonCase('emails-wrong-type', 'bulk', utf8(JSON.stringify({ emails: wrongEmails(prng, domains) }))),
    ],
    [15, () => jsonCase('unicode', 'verify', utf8(JSON.stringify({ email: awkwardAddress(prng, domains) })))],
    [
      6,
      () =>
        jsonCase(
          'unicode-raw-bytes',
          'verify',
          Buffer.concat([
            utf8('{"email":"'),
            wtf8(awkwardAddress(prng, domains).replace(/["\\\u0000-\u001f]/g, '')),
            utf8('"}'),
          ]),
        ),
    ],
    [
      8,
      () =>
        jsonCase(
          'unicode-bulk',
          'bulk',
          utf8(
            JSON.stringify({
              emails: Array.from({ length: prng.int(1, 100) }, () => awkwardAddress(prng, domains)),
            }),
          ),
        ),
    ],
    [
      4,
      () =>
        jsonCase('length-boundary', prng.chance(0.5) ? 'verify' : 'bulk', lengthBoundaryBody(prng, domains)),
    ],
    [6, () => refusedContentType(prng, domains)],
    [3, () => lenientContentType(prng, domains)],
    [6, () => otherMethodOrPath(prng, domains)],
    [
      4,
      () =>
        jsonCase(
          'extra-fields',
          'verify',
          utf8(
            JSON.stringify({
              email: `${plainLocal(prng)}@${prng.pick(domains)}`,
              extra: nonStringValue(prng),
            }),
          ),
        ),
    ],
    [
      4,
      () => {
        const e = endpoint();
        return jsonCase('valid', e, utf8(validBody(prng, e, domains)));
      },
    ],
  ];
  const drawOne = (): CaseDraft => {
    const total = generators.reduce((sum, [weight]) => sum + weight, 0);
    let roll = prng.next() * total;
    for (const [weight, generate] of generators) {
      roll -= weight;
      if (roll < 0) return generate();
    }
    return (generators[0] as [number, () => CaseDraft])[1]();
  };
  return Array.from({ length: count }, (_, id) => ({
    id,
    ...(prng.chance(0.12) ? badAuth(prng, domains, drawOne) : drawOne()),
  }));
}

function wrongEmails(prng: Prng, domains: readonly string[]): unknown {
  if (prng.chance(0.4)) return nonStringValue(prng);
  const entries: unknown[] = Array.from(
    { length: prng.int(1, 10) },
    () => `${plainLocal(prng)}@${prng.pick(domains)}`,
  );
  entries.splice(prng.int(0, entries.length), 0, prng.chance(0.3) ? '' : nonStringValue(prng));
  return entries;
}

function lengthBoundaryBody(prng: Prng, domains: readonly string[]): Buffer {
  const target = prng.pick([1023, 1024, 1025, 1026, 2048]);
  const suffix = `@${prng.pick(domains)}`;
  const filler = prng.chance(0.7) ? 'a' : prng.pick(['é', '😀', 'e\u0301']);
  let local = '';
  while (local.length + suffix.length < target) local += filler;
  const address = `${local}${suffix}`.slice(0, target);
  return utf8(JSON.stringify(prng.chance(0.5) ? { email: address } : { emails: [address] }));
}

function mutate(prng: Prng, body: Buffer): Buffer {
  const bytes = [...body];
  for (let n = prng.int(1, 4); n > 0; n--) {
    const at = prng.int(0, Math.max(0, bytes.length - 1));
    const action = prng.int(0, 2);
    const byte = prng.chance(0.6)
      ? (prng.pick([...'{}[]",:\\u0']) as string).charCodeAt(0)
      : prng.int(0, 255);
    if (action === 0) bytes[at] = byte;
    else if (action === 1) bytes.splice(at, 0, byte);
    else bytes.splice(at, 1);
  }
  return Buffer.from(bytes);
}
