/**
 * SPF: one `v=spf1` record that parses, stays within 10 DNS-querying terms and 2 void lookups,
 * and ends in `-all` or `~all` — never `+all` (anyone may send as the domain) or `?all`.
 */

import { analyseSpf, overLimits, type SpfAnalysis } from '../../mail-auth/spf/analyse.ts';
import { type SenderFinding, senderFinding } from '../finding.ts';
import type { SenderDns } from '../ports.ts';

/** The SPF findings, and the analysis (its addresses feed the blocklist check). */
export async function checkSpf(
  dns: SenderDns,
  domain: string,
): Promise<{ findings: SenderFinding[]; analysis: SpfAnalysis }> {
  const analysis = await analyseSpf(dns, domain);
  const details = {
    record: analysis.record,
    lookups: analysis.lookups,
    void_lookups: analysis.voidLookups,
    includes: analysis.domainsVisited,
    sending_addresses: analysis.sendingAddresses,
    networks: analysis.networks,
  };
  const suggested = "v=spf1 include:<your mail provider's SPF domain> -all";
  const findings: SenderFinding[] = [];
  const problem = analysis.problem;
  if (problem?.kind === 'none') {
    findings.push(
      senderFinding(
        'spf',
        'spf_missing',
        'fail',
        `${domain} publishes no SPF record: receivers cannot tell which servers may send its mail, and many file it as spam.`,
        `Publish one TXT record on ${domain}: "${suggested}", listing every service that sends as ${domain}.`,
        details,
      ),
    );
    return { findings, analysis };
  }
  if (problem?.kind === 'temperror') {
    findings.push(
      senderFinding(
        'spf',
        'spf_lookup_failed',
        'warn',
        `The SPF policy of ${domain} could not be read: ${problem.text}.`,
        'Check that the DNS servers of the domains named answer; run the check again later.',
        details,
      ),
    );
    return { findings, analysis };
  }
  if (problem?.kind === 'many') {
    findings.push(
      senderFinding(
        'spf',
        'spf_multiple_records',
        'fail',
        `${domain} publishes more than one v=spf1 record: receivers treat that as a permanent error and ignore SPF altogether (RFC 7208 §4.5).`,
        `Merge them into one TXT record: keep one "v=spf1", put every mechanism of both in it, and end it with one "-all" or "~all".`,
        details,
      ),
    );
    return { findings, analysis };
  }
  if (problem !== null) {
    findings.push(
      senderFinding(
        'spf',
        'spf_permerror',
        'fail',
        `The SPF record of ${domain} is broken (${problem.text}): receivers treat it as a permanent error, as if there were none.`,
        problem.kind === 'syntax'
          ? `Correct the record of ${domain}: every term must be a mechanism (ip4:, ip6:, a, mx, include:, exists:, all) or a modifier (redirect=, exp=).`
          : 'Remove or correct the include or redirect named: every domain it names must publish exactly one v=spf1 record.',
        details,
      ),
    );
  }
  const over = overLimits(analysis);
  if (over.lookups) {
    findings.push(
      senderFinding(
        'spf',
        'spf_too_many_lookups',
        'fail',
        `The SPF policy of ${domain} needs ${analysis.lookups > 20 ? 'more than 20' : analysis.lookups} DNS lookups (include, a, mx, ptr, exists, redirect, counted through every include); RFC 7208 allows 10, and past that receivers give a permanent error.`,
        'Bring it to 10 or fewer: drop includes of services you no longer use, replace "a" and "mx" by the ip4:/ip6: addresses they stand for, and flatten nested includes into ip4:/ip6: ranges (or use a sending subdomain per service).',
        details,
      ),
    );
  }
  if (over.voids) {
    findings.push(
      senderFinding(
        'spf',
        'spf_void_lookups',
        'fail',
        `${analysis.voidLookups} lookups of the SPF policy of ${domain} find nothing (a name that does not exist or has no record); RFC 7208 allows 2, and past that receivers give a permanent error.`,
        'Remove the a:, mx: and include: terms that name domains or hosts that no longer exist.',
        details,
      ),
    );
  }
  findings.push(...allFindings(domain, analysis, details));
  if (analysis.usesPtr) {
    findings.push(
      senderFinding(
        'spf',
        'spf_ptr',
        'warn',
        `The SPF policy of ${domain} uses "ptr": it is slow, unreliable and RFC 7208 §5.5 says not to use it; some receivers ignore it.`,
        'Replace "ptr" by the ip4:/ip6: addresses of the servers it was meant to cover.',
        details,
      ),
    );
  }
  if (!findings.some((item) => item.status === 'fail' || item.status === 'warn')) {
    findings.push(
      senderFinding(
        'spf',
        'spf_ok',
        'pass',
        `${domain} publishes one valid SPF record (${analysis.lookups} of 10 DNS lookups, ending in "${analysis.allQualifier === '~' ? '~all' : analysis.allQualifier === '-' ? '-all' : 'a redirect'}").`,
        null,
        details,
      ),
    );
  }
  return { findings, analysis };
}

function allFindings(
  domain: string,
  analysis: SpfAnalysis,
  details: Record<string, unknown>,
): SenderFinding[] {
  switch (analysis.allQualifier) {
    case '+':
      return [
        senderFinding(
          'spf',
          'spf_pass_all',
          'fail',
          `The SPF record of ${domain} ends in "+all": it authorises every server on the internet to send as ${domain}.`,
          'Replace "+all" by "-all" (or "~all" while you check that every sender is listed).',
          details,
        ),
      ];
    case '?':
      return [
        senderFinding(
          'spf',
          'spf_neutral_all',
          'warn',
          `The SPF record of ${domain} ends in "?all": mail from any other server is "neutral", so the record protects nothing.`,
          'Replace "?all" by "~all", then by "-all" once DMARC reports show every sender is listed.',
          details,
        ),
      ];
    case null:
      return analysis.hasRedirect
        ? []
        : [
            senderFinding(
              'spf',
              'spf_no_all',
              'warn',
              `The SPF record of ${domain} has no "all" at its end: mail from servers it does not list is "neutral".`,
              'End the record with "-all" (or "~all").',
              details,
            ),
          ];
    default:
      return [];
  }
}
