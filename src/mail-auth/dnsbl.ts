/**
 * DNS blocklists, asked as RFC 5782 says: an IP address reversed under an IP zone
 * (`2.0.0.127.zen.spamhaus.org`), a domain under a domain zone (`example.com.dbl.spamhaus.org`).
 * What each answer code means is data (data/*.json): a listing, or a zone refusing to answer us,
 * which says nothing about the address. An IP zone is also asked for its test entry 127.0.0.2, so a
 * zone that answers nothing at all (dead, or refusing us) is told apart from a real "not listed".
 * The host check (`mailvet doctor`) and the sender-domain checks share it.
 */

import type { DnsResolver } from '../verification/ports.ts';
import ipCodes from './data/dnsbl-return-codes.json' with { type: 'json' };
import domainCodes from './data/domain-blocklist-codes.json' with { type: 'json' };
import { parseIp, reversedName } from './spf/ip-address.ts';

/** What one answer code means. */
export interface CodeMeaning {
  kind: 'listed' | 'refused' | 'error';
  list?: string;
  meaning: string;
}

type CodeTable = { zones: unknown; default: unknown };

/** What one zone said about an address or a domain. */
export type ZoneVerdict =
  | { zone: string; kind: 'not_listed'; testEntryListed: boolean | null }
  | { zone: string; kind: 'listed'; lists: string[]; codes: string[]; meanings: string[] }
  | { zone: string; kind: 'refused'; codes: string[]; meaning: string }
  | { zone: string; kind: 'unknown'; detail: string };

const TEST_ENTRY = { family: 4, value: 0x7f000002n } as const;

function meaningIn(table: CodeTable, zone: string, code: string): CodeMeaning {
  const zones = table.zones as Record<string, Record<string, CodeMeaning>>;
  const fallback = table.default as Record<string, CodeMeaning>;
  const known = (zones[zone.toLowerCase()] ?? fallback)[code] ?? fallback[code];
  if (known !== undefined) return known;
  // Any other 127/8 answer is a listing under a code the table does not name; anything else is
  // a resolver rewriting NXDOMAIN (ISP "search" pages), which says nothing about the subject.
  if (code.startsWith('127.'))
    return { kind: 'listed', list: `code ${code}`, meaning: `listed (return code ${code})` };
  return {
    kind: 'refused',
    meaning: `the resolver answered ${code}, not a blocklist code: it rewrites missing names`,
  };
}

/** What an A answer code means in the IP zone `zone`. */
export function meaningOf(zone: string, code: string): CodeMeaning {
  return meaningIn(ipCodes, zone, code);
}

/** What an A answer code means in the domain zone `zone`. */
export function domainCodeMeaning(zone: string, code: string): CodeMeaning {
  return meaningIn(domainCodes, zone, code);
}

function verdictOf(zone: string, records: string[], meaning: (code: string) => CodeMeaning): ZoneVerdict {
  const meanings = records.map((code) => ({ code, ...meaning(code) }));
  const listed = meanings.filter((item) => item.kind === 'listed');
  if (listed.length > 0) {
    return {
      zone,
      kind: 'listed',
      lists: [...new Set(listed.map((item) => item.list ?? 'listed'))],
      codes: listed.map((item) => item.code),
      meanings: listed.map((item) => item.meaning),
    };
  }
  return { zone, kind: 'refused', codes: meanings.map((item) => item.code), meaning: meanings[0]!.meaning };
}

/** Asks one IP zone about `ip`. */
export async function askZone(
  dns: Pick<DnsResolver, 'resolveA'>,
  zone: string,
  ip: string,
): Promise<ZoneVerdict> {
  const address = parseIp(ip);
  if (address === null) return { zone, kind: 'unknown', detail: `${ip} is not an IP address` };
  const [answer, test] = await Promise.all([
    dns.resolveA(`${reversedName(address)}.${zone}`),
    address.family === 4 ? dns.resolveA(`${reversedName(TEST_ENTRY)}.${zone}`) : Promise.resolve(null),
  ]);
  if (answer.kind === 'error') return { zone, kind: 'unknown', detail: `lookup failed (${answer.failure})` };
  if (answer.kind !== 'ok' || answer.records.length === 0) {
    const testListed =
      test === null
        ? null
        : test.kind === 'ok' && test.records.some((code) => meaningOf(zone, code).kind === 'listed');
    return { zone, kind: 'not_listed', testEntryListed: testListed };
  }
  return verdictOf(zone, answer.records, (code) => meaningOf(zone, code));
}

/** Asks one domain zone about `domain` (DBL style: no test entry is asked). */
export async function askDomainZone(
  dns: Pick<DnsResolver, 'resolveA'>,
  zone: string,
  domain: string,
): Promise<ZoneVerdict> {
  const answer = await dns.resolveA(`${domain}.${zone}`);
  if (answer.kind === 'error') return { zone, kind: 'unknown', detail: `lookup failed (${answer.failure})` };
  if (answer.kind !== 'ok' || answer.records.length === 0)
    return { zone, kind: 'not_listed', testEntryListed: null };
  return verdictOf(zone, answer.records, (code) => domainCodeMeaning(zone, code));
}
