/**
 * DNS blocklists: is the egress address listed? A listing makes mail servers refuse the probe
 * (a "blocked" result, never a verdict on the mailbox). The zones are asked by `mail-auth/dnsbl.ts`
 * (return codes from its data file, the RFC 5782 test entry telling a dead zone from a clean one).
 */
import { askZone } from '../../mail-auth/dnsbl.ts';
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';

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
