/**
 * TLS-RPT (RFC 8460): a `v=TLSRPTv1; rua=…` record at `_smtp._tls.<domain>` asks senders for daily
 * reports of TLS failures delivering to the domain: what tells an MTA-STS policy is safe to enforce.
 */

import { parseTagList, recordsWithVersion, txtRecords } from '../../mail-auth/tag-list.ts';
import { type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';

/** The TLS-RPT finding. */
export async function checkTlsRpt(dns: SenderDns, domain: string): Promise<SenderFinding[]> {
  const name = `_smtp._tls.${domain}`;
  const records = txtRecords(await dns.resolveTxt(name));
  if (records === null)
    return [
      senderFinding(
        'tls_rpt',
        'tls_rpt_lookup_failed',
        'warn',
        `The TLS-RPT record ${name} could not be looked up.`,
        'Run the check again later.',
      ),
    ];
  const found = recordsWithVersion(records, 'TLSRPTv1');
  if (found.length === 0) {
    return [
      senderFinding(
        'tls_rpt',
        'tls_rpt_missing',
        'info',
        `${domain} publishes no TLS-RPT record: nobody is told when senders fail to reach it over TLS.`,
        `Publish a TXT record at ${name}: "v=TLSRPTv1; rua=mailto:tls-reports@${domain}".`,
        { name },
      ),
    ];
  }
  const parsed = parseTagList(found[0]!);
  const rua = typeof parsed === 'string' ? undefined : parsed.tags.get('rua');
  const targets = (rua ?? '')
    .split(',')
    .map((each) => each.trim())
    .filter(Boolean);
  if (
    found.length > 1 ||
    targets.length === 0 ||
    !targets.every((each) => /^(mailto:[^@\s]+@[^@\s]+|https:\/\/\S+)$/i.test(each))
  ) {
    return [
      senderFinding(
        'tls_rpt',
        'tls_rpt_bad_record',
        'fail',
        found.length > 1
          ? `${name} holds ${found.length} TLSRPTv1 records: senders use none.`
          : `The TLS-RPT record at ${name} has no usable rua= (mailto: or https: addresses).`,
        `Publish exactly one record: "v=TLSRPTv1; rua=mailto:tls-reports@${domain}".`,
        { name, records: found },
      ),
    ];
  }
  return [
    senderFinding(
      'tls_rpt',
      'tls_rpt_ok',
      'pass',
      `${domain} asks for TLS reports at ${targets.join(', ')}.`,
      null,
      { name, record: found[0], rua: targets },
    ),
  ];
}
