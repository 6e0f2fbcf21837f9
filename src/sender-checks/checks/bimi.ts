/**
 * BIMI: a `v=BIMI1; l=<https SVG>; a=<certificate>` record at `default._bimi.<domain>` lets
 * mailbox providers show the brand's logo. They show it only for a domain whose DMARC policy is
 * enforced (quarantine or reject, on all mail), and Gmail and Apple only with a mark certificate.
 */

import { parseTagList, recordsWithVersion, txtRecords } from '../../mail-auth/tag-list.ts';
import { type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';
import type { DmarcPolicy } from './dmarc.ts';

/** The BIMI findings, given the DMARC policy (null when there is none usable). */
export async function checkBimi(
  dns: SenderDns,
  domain: string,
  dmarc: DmarcPolicy | null,
): Promise<SenderFinding[]> {
  const name = `default._bimi.${domain}`;
  const records = txtRecords(await dns.resolveTxt(name));
  if (records === null)
    return [
      senderFinding(
        'bimi',
        'bimi_lookup_failed',
        'info',
        `The BIMI record ${name} could not be looked up.`,
        null,
      ),
    ];
  const found = recordsWithVersion(records, 'BIMI1');
  if (found.length === 0) {
    return [
      senderFinding(
        'bimi',
        'bimi_missing',
        'info',
        `${domain} publishes no BIMI record: mailbox providers show no logo beside its mail (optional).`,
        `To show your logo: publish "v=BIMI1; l=https://${domain}/logo.svg" at ${name}, with the logo as SVG Tiny PS; Gmail and Apple also need a=<the URL of a Verified Mark Certificate>.`,
        { name },
      ),
    ];
  }
  const parsed = parseTagList(found[0]!);
  const logo = typeof parsed === 'string' ? undefined : parsed.tags.get('l');
  const certificate = typeof parsed === 'string' ? undefined : parsed.tags.get('a');
  const details = { name, record: found[0], logo: logo ?? null, certificate: certificate || null };
  const findings: SenderFinding[] = [];
  if (logo === undefined || !/^https:\/\/\S+\.svg$/i.test(logo)) {
    findings.push(
      senderFinding(
        'bimi',
        'bimi_bad_record',
        'fail',
        `The BIMI record at ${name} has no usable l= tag (an https URL of an SVG logo).`,
        `Set l= to the https URL of your logo in SVG Tiny PS: "v=BIMI1; l=https://${domain}/logo.svg".`,
        details,
      ),
    );
  }
  if (dmarc === null || dmarc.policy === 'none' || dmarc.pct < 100) {
    findings.push(
      senderFinding(
        'bimi',
        'bimi_needs_dmarc_enforcement',
        'warn',
        'A BIMI record is published but DMARC is not enforced (p=quarantine or p=reject on 100% of mail): providers show no logo.',
        'Move DMARC to p=quarantine or p=reject without pct= (or pct=100).',
        details,
      ),
    );
  }
  if (findings.length === 0) {
    findings.push(
      senderFinding(
        'bimi',
        'bimi_ok',
        'pass',
        `${domain} publishes a BIMI record (logo ${logo}${certificate ? ', with a mark certificate' : ', without a mark certificate: Gmail and Apple need one'}).`,
        null,
        details,
      ),
    );
  }
  return findings;
}
