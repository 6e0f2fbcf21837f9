/**
 * DKIM (RFC 6376, RFC 8463): the public keys at `<selector>._domainkey.<domain>` of the selectors
 * given, else of a short list of common ones (data/dkim-selectors.json). RSA keys are read from the
 * `p=` SubjectPublicKeyInfo: under 1024 bits is weak (receivers refuse them), 1024 is short,
 * 2048 and up is good. Ed25519 keys are 32 raw bytes.
 */
import { createPublicKey } from 'node:crypto';
import { parseTagList, txtRecords } from '../../mail-auth/tag-list.ts';
import selectorData from '../data/dkim-selectors.json' with { type: 'json' };
import { listWords, type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';

/** Selectors tried when none is given. */
export const COMMON_SELECTORS: readonly string[] = selectorData.selectors;

/** What one selector's record holds. */
export type DkimKey =
  | { selector: string; kind: 'absent' }
  | { selector: string; kind: 'lookup_failed' }
  | { selector: string; kind: 'revoked'; record: string }
  | { selector: string; kind: 'unreadable'; record: string; problem: string }
  | { selector: string; kind: 'rsa'; bits: number; record: string }
  | { selector: string; kind: 'ed25519'; record: string };

/** Reads the key of one selector. */
export async function readDkimKey(dns: SenderDns, domain: string, selector: string): Promise<DkimKey> {
  const records = txtRecords(await dns.resolveTxt(`${selector}._domainkey.${domain}`));
  if (records === null) return { selector, kind: 'lookup_failed' };
  // Some zones keep other TXT strings beside the key; the one with p= is the key.
  const record = records.find((text) => /(^|;)\s*p\s*=/i.test(text));
  if (record === undefined) return { selector, kind: 'absent' };
  return keyOf(selector, record);
}

/** The key a DKIM record carries. */
export function keyOf(selector: string, record: string): DkimKey {
  const parsed = parseTagList(record);
  if (typeof parsed === 'string') return { selector, kind: 'unreadable', record, problem: parsed };
  const version = parsed.tags.get('v');
  if (version !== undefined && version !== 'DKIM1')
    return { selector, kind: 'unreadable', record, problem: `v=${version} is not DKIM1` };
  const p = (parsed.tags.get('p') ?? '').replace(/\s+/g, '');
  if (p === '') return { selector, kind: 'revoked', record };
  const type = (parsed.tags.get('k') ?? 'rsa').toLowerCase();
  const bytes = Buffer.from(p, 'base64');
  if (type === 'ed25519') {
    return bytes.length === 32
      ? { selector, kind: 'ed25519', record }
      : {
          selector,
          kind: 'unreadable',
          record,
          problem: `an Ed25519 key is 32 bytes, this one ${bytes.length}`,
        };
  }
  if (type !== 'rsa')
    return { selector, kind: 'unreadable', record, problem: `k=${type} is not a key type receivers know` };
  try {
    const key = createPublicKey({ key: bytes, format: 'der', type: 'spki' });
    const bits = key.asymmetricKeyDetails?.modulusLength;
    if (key.asymmetricKeyType !== 'rsa' || bits === undefined)
      return { selector, kind: 'unreadable', record, problem: 'p= is not an RSA public key' };
    return { selector, kind: 'rsa', bits, record };
  } catch {
    return { selector, kind: 'unreadable', record, problem: 'p= is not a valid base64 SubjectPublicKeyInfo' };
  }
}

/** The DKIM findings for these selectors (`given`: the caller named them). */
export async function checkDkim(
  dns: SenderDns,
  domain: string,
  selectors: readonly string[],
  given: boolean,
): Promise<SenderFinding[]> {
  const keys = await Promise.all(selectors.map((selector) => readDkimKey(dns, domain, selector)));
  const findings: SenderFinding[] = [];
  const rotate = (selector: string) =>
    `Generate a 2048-bit RSA key in the service that signs with "${selector}", publish its TXT record at ${selector}._domainkey.${domain} ("v=DKIM1; k=rsa; p=…"), switch signing to it, then remove the old one.`;
  for (const key of keys) {
    const name = `${key.selector}._domainkey.${domain}`;
    const details = { selector: key.selector, name, ...('record' in key && { record: key.record }) };
    switch (key.kind) {
      case 'rsa':
        if (key.bits < 1024) {
          findings.push(
            senderFinding(
              'dkim',
              'dkim_weak_key',
              'fail',
              `The DKIM key "${key.selector}" is RSA ${key.bits}-bit: receivers treat signatures with keys under 1024 bits as invalid, and such keys can be broken.`,
              rotate(key.selector),
              { ...details, key_type: 'rsa', bits: key.bits },
            ),
          );
        } else if (key.bits < 2048) {
          findings.push(
            senderFinding(
              'dkim',
              'dkim_short_key',
              'warn',
              `The DKIM key "${key.selector}" is RSA ${key.bits}-bit: still accepted, but below the 2048 bits RFC 8301 recommends and Gmail expects.`,
              rotate(key.selector),
              { ...details, key_type: 'rsa', bits: key.bits },
            ),
          );
        } else {
          findings.push(
            senderFinding(
              'dkim',
              'dkim_ok',
              'pass',
              `The DKIM key "${key.selector}" is RSA ${key.bits}-bit.`,
              null,
              { ...details, key_type: 'rsa', bits: key.bits },
            ),
          );
        }
        break;
      case 'ed25519':
        findings.push(
          senderFinding(
            'dkim',
            'dkim_ok',
            'pass',
            `The DKIM key "${key.selector}" is Ed25519 (RFC 8463). Not every receiver verifies Ed25519 yet: sign with an RSA key as well.`,
            null,
            { ...details, key_type: 'ed25519', bits: 256 },
          ),
        );
        break;
      case 'revoked':
        findings.push(
          senderFinding(
            'dkim',
            'dkim_revoked',
            'info',
            `The DKIM selector "${key.selector}" is revoked (empty p=): signatures with it fail.`,
            null,
            details,
          ),
        );
        break;
      case 'unreadable':
        findings.push(
          senderFinding(
            'dkim',
            'dkim_bad_record',
            'fail',
            `The DKIM record of "${key.selector}" cannot be used: ${key.problem}.`,
            `Publish the record exactly as the signing service gives it at ${name}: "v=DKIM1; k=rsa; p=<base64 key>" (long keys split into several quoted strings of one TXT record).`,
            details,
          ),
        );
        break;
      case 'lookup_failed':
        // One finding for every selector that failed, after the loop.
        break;
      case 'absent':
        if (given)
          findings.push(
            senderFinding(
              'dkim',
              'dkim_not_found',
              'fail',
              `No DKIM key at ${name}: mail signed with the selector "${key.selector}" fails DKIM.`,
              `Publish the key the signing service gives you at ${name}, or correct the selector.`,
              details,
            ),
          );
        break;
    }
  }
  const failed = keys.filter((key) => key.kind === 'lookup_failed').map((key) => key.selector);
  if (failed.length > 0) {
    findings.push(
      senderFinding(
        'dkim',
        'dkim_lookup_failed',
        'warn',
        `The DKIM record${failed.length === 1 ? '' : 's'} of ${listWords(failed.map((selector) => `"${selector}"`))} could not be looked up.`,
        'Check that the DNS servers of the domain answer; run the check again later.',
        { selectors: failed },
      ),
    );
  }
  const usable = keys.some((key) => key.kind === 'rsa' || key.kind === 'ed25519');
  if (!given && !usable && !keys.some((key) => key.kind !== 'absent')) {
    findings.push(
      senderFinding(
        'dkim',
        'dkim_not_found',
        'warn',
        `No DKIM key found under the common selectors (${listWords([...selectors])}). DNS cannot list a domain's selectors: yours may have others.`,
        'Name your selectors (the s= tag of the DKIM-Signature header of a mail you sent) and check again; if you sign with none, turn on DKIM signing in every service that sends as the domain.',
        { selectors },
      ),
    );
  }
  return findings;
}
