/**
 * The named hostile cases, sent on every run whatever the seed: deep nesting, bodies at and over
 * the 1 MB limit, lone surrogates (escaped and as raw bytes), length boundaries, prototype keys,
 * duplicate keys, bulk sizes, every refused content type, method and credential.
 */
import { ODD_PATHS, OTHER_METHODS, REFUSED_AUTH, REFUSED_TYPES } from './hostile-catalog.ts';
import { type GeneratorOptions, type HostileCase, jsonCase, PATHS, wtf8 } from './hostile-generators.ts';
import { alsoAllow, type Endpoint } from './hostile-oracle.ts';
import { deepArray, deepObject } from './hostile-values.ts';

type CaseDraft = Omit<HostileCase, 'id'>;

/** The documented body limit. */
export const BODY_LIMIT_BYTES = 1_048_576;

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** A JSON body `{"email": …, "pad": "xxx…"}` of exactly `size` bytes. */
export function paddedBody(size: number, email: string): Buffer {
  const head = `{"email":${JSON.stringify(email)},"pad":"`;
  return utf8(`${head}${'x'.repeat(size - head.length - 2)}"}`);
}

/** Every named case, numbered from 0. */
export function fixedCases({ domains }: GeneratorOptions): HostileCase[] {
  const domain = domains[0] ?? 'example.test';
  const ok = `jane.doe@${domain}`;
  const drafts: CaseDraft[] = [];
  const json = (kind: string, endpoint: Endpoint, text: string | Buffer) =>
    drafts.push(jsonCase(kind, endpoint, typeof text === 'string' ? utf8(text) : text));

  // Deep nesting: cheap on the wire, deadly for recursive code (walkers, serializers, loggers).
  for (const depth of [10_000, 100_000, 500_000]) {
    json(`deep-array-${depth}`, 'verify', deepArray(depth));
    json(`deep-array-${depth}`, 'bulk', deepArray(depth));
  }
  for (const depth of [10_000, 100_000]) {
    json(`deep-object-${depth}`, 'verify', deepObject(depth));
    json(`deep-object-email-${depth}`, 'verify', deepObject(depth, 'email'));
    json(`deep-object-extra-${depth}`, 'verify', `{"email":${JSON.stringify(ok)},"x":${deepObject(depth)}}`);
    json(
      `deep-object-emails-${depth}`,
      'bulk',
      `{"emails":[${JSON.stringify(ok)}],"x":${deepObject(depth)}}`,
    );
  }
  json('deep-email-value', 'verify', `{"email":${deepArray(100_000)}}`);
  json('deep-emails-value', 'bulk', `{"emails":${deepArray(100_000)}}`);
  json('deep-emails-entry', 'bulk', `{"emails":[${JSON.stringify(ok)},${deepArray(100_000)}]}`);

  // Size: at the limit is accepted, one byte over is not, and neither is 5 MB.
  json('body-at-limit', 'verify', paddedBody(BODY_LIMIT_BYTES, ok));
  for (const size of [BODY_LIMIT_BYTES + 1, 5 * BODY_LIMIT_BYTES]) {
    drafts.push({
      ...jsonCase(`body-over-limit-${size}`, 'verify', paddedBody(size, ok)),
      expect: { statuses: [413] },
    });
    drafts.push({
      ...jsonCase(`body-over-limit-${size}`, 'bulk', paddedBody(size, ok)),
      expect: { statuses: [413] },
    });
  }
  json('email-1MB-string', 'verify', `{"email":"${'a'.repeat(1_000_000)}@${domain}"}`);
  drafts.push({
    ...jsonCase('unauthenticated-5MB', 'verify', paddedBody(5 * BODY_LIMIT_BYTES, ok)),
    auth: { kind: 'none' },
    expect: { statuses: [401] },
  });
  drafts.push({
    ...jsonCase('unauthenticated-deep', 'bulk', utf8(deepArray(500_000))),
    auth: { kind: 'none' },
    expect: { statuses: [401] },
  });

  // Not a JSON object.
  for (const text of [
    '',
    ' ',
    '\n',
    'null',
    '[]',
    '1',
    '"x"',
    'true',
    `[{"email":"${ok}"}]`,
    '{',
    '}',
    '{"email"',
    '\ufeff{}',
    'NaN',
    '{"email":undefined}',
    "{'email':'a@b'}",
    '{"email":"a@b",}',
  ]) {
    json('not-a-json-object', 'verify', text);
    json('not-a-json-object', 'bulk', text);
  }
  json('empty-object', 'verify', '{}');
  json('empty-object', 'bulk', '{}');

  // Lone surrogates: as JSON escapes the server gets a real lone surrogate; as raw bytes, invalid UTF-8.
  for (const address of [
    '\\ud800@DOMAIN',
    '\\udfff@DOMAIN',
    'a\\ud83d@DOMAIN',
    '\\udc00\\ud800@DOMAIN',
    'jane@ex\\ud800ample.DOMAIN',
    'jane@DOMAIN\\udbff',
    '\\ud83d\\ude00@DOMAIN',
  ]) {
    json('lone-surrogate-escape', 'verify', `{"email":"${address.replaceAll('DOMAIN', domain)}"}`);
  }
  json('lone-surrogate-bulk', 'bulk', `{"emails":["\\ud800@${domain}","${ok}","x\\udfff@${domain}"]}`);
  for (const bytes of [
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xc0, 0x80],
    [0x80],
    [0xff, 0xfe],
    [0xe2, 0x82],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
  ]) {
    json(
      'invalid-utf8',
      'verify',
      Buffer.concat([utf8('{"email":"a'), Buffer.from(bytes), utf8(`@${domain}"}`)]),
    );
  }
  json(
    'wtf8-surrogate',
    'bulk',
    Buffer.concat([utf8('{"emails":["'), wtf8(`\ud800@${domain}`), utf8(`","${ok}"]}`)]),
  );

  // Unicode and control characters, and the 1024-character boundary.
  for (const address of [
    '\u202ejane@DOMAIN',
    'ジェーン@DOMAIN',
    'jane@例え.テスト',
    'e\u0301@DOMAIN',
    '😀@DOMAIN',
    'a\u0000b@DOMAIN',
    '\u0000',
    'jane@DOMAIN\u0000',
    '\u00a0jane@DOMAIN\u3000',
    'jane\uff20DOMAIN',
    '"a@b"@DOMAIN',
    'jane@[127.0.0.1]',
    'jane@[IPv6:::1]',
    '@',
    '@@',
    ' ',
  ]) {
    json('unicode-named', 'verify', JSON.stringify({ email: address.replaceAll('DOMAIN', domain) }));
  }
  for (const length of [1024, 1025]) {
    const address = `${'a'.repeat(length - domain.length - 1)}@${domain}`;
    json(`length-${length}`, 'verify', JSON.stringify({ email: address }));
    json(`length-${length}`, 'bulk', JSON.stringify({ emails: [ok, address] }));
  }

  // Wrong types.
  for (const value of [
    '5',
    'null',
    'true',
    'false',
    '{}',
    '[]',
    `["${ok}"]`,
    `{"email":"${ok}"}`,
    '1e999',
    '-0',
    '""',
  ]) {
    json('email-wrong-type', 'verify', `{"email":${value}}`);
    json('emails-wrong-type', 'bulk', `{"emails":${value === `["${ok}"]` ? `"${ok}"` : value}}`);
  }
  json('emails-mixed', 'bulk', `{"emails":["${ok}",1,null,true,{},[],""]}`);

  // Prototype keys (also checked afterwards: Object.prototype must be untouched).
  json('proto', 'verify', `{"__proto__":{"email":"${ok}"}}`);
  json('proto', 'verify', `{"email":"${ok}","__proto__":{"polluted":true}}`);
  json('proto-escaped', 'verify', `{"\\u005f_proto__":{"polluted":true},"email":"${ok}"}`);
  json('constructor', 'verify', `{"constructor":{"prototype":{"email":"${ok}"}}}`);
  json('constructor', 'verify', `{"email":"${ok}","constructor":{"prototype":{"polluted":true}}}`);
  json('proto', 'bulk', `{"emails":["${ok}"],"__proto__":{"emails":["x"],"polluted":true}}`);
  json('proto-array-like', 'bulk', `{"emails":{"length":1,"0":"${ok}"}}`);
  json('proto-email-object', 'verify', '{"email":{"toString":"x","valueOf":1}}');

  // Duplicate keys: JSON.parse keeps the last; a server refusing duplicates (400) is also fine.
  for (const text of [
    `{"email":5,"email":"${ok}"}`,
    `{"email":"${ok}","email":5}`,
    `{"email":"${ok}","email":""}`,
  ]) {
    const draft = jsonCase('duplicate-keys', 'verify', utf8(text));
    drafts.push({ ...draft, expect: alsoAllow(draft.expect, 400) });
  }
  const dupBulk = jsonCase('duplicate-keys', 'bulk', utf8(`{"emails":["${ok}"],"emails":"x"}`));
  drafts.push({ ...dupBulk, expect: alsoAllow(dupBulk.expect, 400) });

  // Bulk sizes and duplicates (one charge per unique normalized address).
  const many = (n: number) => Array.from({ length: n }, (_, i) => `user${i % 37}@${domain}`);
  json('bulk-0', 'bulk', '{"emails":[]}');
  json('bulk-100', 'bulk', JSON.stringify({ emails: many(100) }));
  json('bulk-101', 'bulk', JSON.stringify({ emails: many(101) }));
  json('bulk-100-bad-57', 'bulk', JSON.stringify({ emails: many(100).map((e, i) => (i === 57 ? '' : e)) }));
  json(
    'bulk-same-address',
    'bulk',
    JSON.stringify({ emails: [ok, ` ${ok}`, `${ok} `, ok.replace(domain, domain.toUpperCase())] }),
  );

  // Every refused content type, credential and method.
  for (const contentType of REFUSED_TYPES) {
    for (const endpoint of ['verify', 'bulk'] as const) {
      const body = endpoint === 'verify' ? `{"email":"${ok}"}` : `{"emails":["${ok}"]}`;
      drafts.push({
        ...jsonCase('content-type', endpoint, utf8(body)),
        contentType,
        expect: { statuses: [400] },
      });
    }
  }
  const multipart = `--hostile\r\nContent-Disposition: form-data; name="email"\r\n\r\n${ok}\r\n--hostile--\r\n`;
  drafts.push({
    ...jsonCase('multipart', 'verify', utf8(multipart)),
    contentType: 'multipart/form-data; boundary=hostile',
    expect: { statuses: [400] },
  });
  for (const template of [...REFUSED_AUTH, 'Bearer {revoked}']) {
    drafts.push({
      ...jsonCase('auth-refused', 'verify', utf8(`{"email":"${ok}"}`)),
      auth: { kind: 'header', template },
      expect: { statuses: [401] },
    });
  }
  drafts.push({
    ...jsonCase('auth-none', 'bulk', utf8(`{"emails":["${ok}"]}`)),
    auth: { kind: 'none' },
    expect: { statuses: [401] },
  });
  for (const method of OTHER_METHODS) {
    for (const url of Object.values(PATHS)) {
      drafts.push({
        kind: 'method',
        endpoint: 'other',
        method,
        url,
        contentType: undefined,
        auth: { kind: 'valid' },
        body: undefined,
        expect: { statuses: [204, 401, 404, 405] },
      });
    }
  }
  for (const url of ODD_PATHS) {
    for (const auth of [{ kind: 'valid' }, { kind: 'none' }] as const) {
      const draft = jsonCase('odd-path', 'verify', utf8(`{"email":"${ok}"}`));
      drafts.push({ ...draft, endpoint: 'other', url, auth, expect: { statuses: [200, 400, 401, 404] } });
    }
  }
  for (const url of ['/api/v1/openapi.json', '/healthz']) {
    drafts.push({
      kind: 'public',
      endpoint: 'other',
      method: 'GET',
      url,
      contentType: undefined,
      auth: { kind: 'none' },
      body: undefined,
      expect: { statuses: [200] },
    });
  }
  const queried = jsonCase('query-string', 'verify', utf8(`{"email":"${ok}"}`));
  drafts.push({ ...queried, url: `${PATHS.verify}?email=other@${domain}&__proto__[polluted]=1` });
  return drafts.map((draft, id) => ({ id, ...draft }));
}
