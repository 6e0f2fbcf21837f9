/**
 * DNS blocklists: is the egress address listed? A listing makes mail servers refuse the probe
 * (a "blocked" result, never a verdict on the mailbox). Each zone is asked for the address and for
 * its RFC 5782 test entry (127.0.0.2), so a zone that answers nothing at all — dead, or refusing
 * us — is told apart from a real "not listed". Return codes are read from a data file.
 */
import codeTable from '../data/dnsbl-return-codes.json' with { type: 'json' };
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';
import { parseIp, reversedName } from '../spf/ip-address.ts';

interface CodeMeaning {
  kind: 'listed' | 'refused' | 'error';
  list?: string;
  meaning: string;
}

const ZONES = codeTable.zones as Record<string, Record<string, CodeMeaning>>;
const DEFAULT_CODES = codeTable.default as Record<string, CodeMeaning>;
const TEST_ENTRY = { family: 4, value: 0x7f000002n } as const;

/** What one zone said about the address. */
export type ZoneVerdict =
  | { zone: string; kind: 'not_listed'; testEntryListed: boolean | null }
  | { zone: string; kind: 'listed'; lists: string[]; codes: string[]; meanings: string[] }
  | { zone: string; kind: 'refused'; codes: string[]; meaning: string }
  | { zone: string; kind: 'unknown'; detail: string };

/** What an A answer code means in `zone`. */
export function meaningOf(zone: string, code: string): CodeMeaning {
  const known = (ZONES[zone.toLowerCase()] ?? DEFAULT_CODES)[code] ?? DEFAULT_CODES[code];
  if (known !== undefined) return known;
  // Any other 127/8 answer is a listing under a code this table does not name; anything else is
  // a resolver rewriting NXDOMAIN (ISP "search" pages), which says nothing about the address.
  if (code.startsWith('127.'))
    return { kind: 'listed', list: `code ${code}`, meaning: `listed (return code ${code})` };
  return {
    kind: 'refused',
    meaning: `the resolver answered ${code}, not a blocklist code: it rewrites missing names`,
  };
}

/** Asks one zone about `ip`. */
export async function askZone(dns: DoctorDns, zone: string, ip: string): Promise<ZoneVerdict> {
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
  const meanings = answer.records.map((code) => ({ code, ...meaningOf(zone, code) }));
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

/** Checks the egress address against every configured zone at once. */
export async function checkDnsbl(
  dns: DoctorDns,
  zones: readonly string[],
  egressIp: string | null,
): Promise<Finding> {
  if (zones.length === 0)
    return finding('dnsbl', 'skipped', 'No blocklist zone is configured (MAILVET_DNSBL_ZONES is empty).', {});
  if (egressIp === null)
    return finding('dnsbl', 'skipped', 'Not checked: the egress address is unknown.', { zones });
  const verdicts = await Promise.all(zones.map((zone) => askZone(dns, zone, egressIp)));
  const details = { ip: egressIp, zones: verdicts };
  const listed = verdicts.filter((verdict) => verdict.kind === 'listed');
  if (listed.length > 0) {
    const named = listed.map(
      (verdict) => `${verdict.zone} (${verdict.lists.join(', ')}: ${verdict.meanings[0]})`,
    );
    return finding(
      'dnsbl',
      'fail',
      `${egressIp} is listed in ${named.join('; ')}. Mail servers that use these lists refuse the probe.`,
      details,
      "Look the address up on each list's web site, fix the cause (an infected host, a shared or dynamic range: a PBL listing means a home or dynamic address that should not send mail directly) and ask for delisting, or probe from another address.",
    );
  }
  const refused = verdicts.filter((verdict) => verdict.kind === 'refused');
  const unknown = verdicts.filter((verdict) => verdict.kind === 'unknown');
  const dead = verdicts.filter(
    (verdict) => verdict.kind === 'not_listed' && verdict.testEntryListed === false,
  );
  const clean = verdicts.length - refused.length - unknown.length - dead.length;
  if (refused.length + unknown.length + dead.length > 0) {
    const notes = [
      ...refused.map(
        (verdict) =>
          `${verdict.zone} refused to answer (${verdict.codes.join(', ')}: ${verdict.meaning}) — that is not a listing`,
      ),
      ...unknown.map((verdict) => `${verdict.zone} could not be asked (${verdict.detail})`),
      ...dead.map(
        (verdict) =>
          `${verdict.zone} does not list its own test entry 127.0.0.2, so its "not listed" means nothing`,
      ),
    ];
    const fix =
      refused.length > 0
        ? "Spamhaus and others refuse queries from public resolvers (8.8.8.8, 1.1.1.1): point MAILVET_DNS_SERVERS at a resolver of your own (unbound, your provider's), or use the zone's registered (DQS) name in MAILVET_DNSBL_ZONES."
        : 'Check the zone names in MAILVET_DNSBL_ZONES and the resolver, then run the doctor again.';
    return finding(
      'dnsbl',
      'warn',
      `${egressIp} is not listed where asked (${clean} of ${verdicts.length} zones), but ${notes.join('; ')}.`,
      details,
      fix,
    );
  }
  return finding('dnsbl', 'pass', `${egressIp} is not listed in ${zones.join(', ')}.`, details);
}
