/**
 * Blocklists: the MX addresses and the SPF-listed sending addresses in the IP zones
 * (MAILVET_DNSBL_ZONES, asked as the host check asks them), and the domain itself in the domain
 * zones (MAILVET_DNSBL_DOMAIN_ZONES: Spamhaus DBL, URIBL); `mail-auth/dnsbl.ts` reads the answer
 * codes. A zone that refuses us is never a listing.
 */
import { askDomainZone, askZone } from '../../mail-auth/dnsbl.ts';
import { listWords, type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';
import type { SenderCheckSettings } from '../settings.ts';

/** The blocklist findings for these addresses and the domain. */
export async function checkBlocklists(
  dns: SenderDns,
  settings: SenderCheckSettings,
  domain: string,
  addresses: { mx: readonly string[]; spf: readonly string[] },
): Promise<SenderFinding[]> {
  const ips = [...new Set([...addresses.mx, ...addresses.spf])].slice(0, settings.maxBlocklistAddresses);
  const asked = await Promise.all([
    ...ips.flatMap((ip) =>
      settings.ipZones.map(async (zone) => ({ subject: ip, verdict: await askZone(dns, zone, ip) })),
    ),
    ...settings.domainZones.map(async (zone) => ({
      subject: domain,
      verdict: await askDomainZone(dns, zone, domain),
    })),
  ]);
  const findings: SenderFinding[] = [];
  for (const { subject, verdict } of asked) {
    if (verdict.kind !== 'listed') continue;
    const role =
      subject === domain
        ? 'The domain'
        : addresses.mx.includes(subject)
          ? 'The MX address'
          : 'The sending address (from SPF)';
    findings.push(
      senderFinding(
        'blocklists',
        'blocklist_listed',
        'fail',
        `${role} ${subject} is listed in ${verdict.zone} (${verdict.lists.join(', ')}: ${verdict.meanings[0]}): receivers that use this list refuse or filter its mail.`,
        `Find and stop the cause (a compromised account or server, a purchased list, an open form), then ask for delisting on ${verdict.zone.split('.').slice(-2).join('.')}'s lookup page.`,
        { subject, verdict },
      ),
    );
  }
  const refused = asked.filter(({ verdict }) => verdict.kind === 'refused');
  const unknown = asked.filter(({ verdict }) => verdict.kind === 'unknown');
  const dead = asked.filter(
    ({ verdict }) => verdict.kind === 'not_listed' && verdict.testEntryListed === false,
  );
  if (refused.length > 0) {
    const zones = [...new Set(refused.map(({ verdict }) => verdict.zone))];
    findings.push(
      senderFinding(
        'blocklists',
        'blocklist_query_refused',
        'warn',
        `${listWords(zones)} refused to answer (${refused[0]!.verdict.kind === 'refused' ? refused[0]!.verdict.meaning : ''}): that is not a listing, but those lists were not checked.`,
        "Spamhaus, URIBL and others refuse queries from public resolvers (8.8.8.8, 1.1.1.1): point MAILVET_DNS_SERVERS at a resolver of your own, or use the zone's registered (DQS) name.",
        { zones, answers: refused },
      ),
    );
  }
  if (unknown.length + dead.length > 0) {
    const zones = [...new Set([...unknown, ...dead].map(({ verdict }) => verdict.zone))];
    findings.push(
      senderFinding(
        'blocklists',
        'blocklist_unavailable',
        'warn',
        `${listWords(zones)} could not be asked, or do not list their own test entry: their "not listed" means nothing.`,
        'Check the zone names in MAILVET_DNSBL_ZONES and MAILVET_DNSBL_DOMAIN_ZONES, and the resolver.',
        { zones },
      ),
    );
  }
  const checkedZones = settings.ipZones.length + settings.domainZones.length;
  if (checkedZones === 0) {
    findings.push(
      senderFinding(
        'blocklists',
        'blocklist_not_configured',
        'info',
        'No blocklist zone is configured (MAILVET_DNSBL_ZONES and MAILVET_DNSBL_DOMAIN_ZONES are empty).',
        null,
      ),
    );
  } else if (findings.length === 0) {
    findings.unshift(
      senderFinding(
        'blocklists',
        'blocklist_clean',
        'pass',
        `Not listed: ${ips.length} address${ips.length === 1 ? '' : 'es'} (${ips.join(', ') || 'none'}) in ${settings.ipZones.join(', ') || 'no IP zone'}, and ${domain} in ${settings.domainZones.join(', ') || 'no domain zone'}.`,
        null,
        { addresses: ips, ip_zones: settings.ipZones, domain_zones: settings.domainZones },
      ),
    );
  }
  return findings;
}
