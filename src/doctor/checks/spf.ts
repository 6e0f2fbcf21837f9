/**
 * SPF of the probe's envelope sender: the MAIL FROM domain should authorise the egress address.
 * A receiver that checks SPF at MAIL FROM may refuse a probe whose sender fails, and the refusal
 * then hides the mailbox's answer.
 */
import { checkHost, type SpfEvaluation } from '../../mail-auth/spf/evaluate.ts';
import { parseIp } from '../../mail-auth/spf/ip-address.ts';
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';
import { canonicalName, type DoctorSettings } from '../settings.ts';

/** Evaluates the FROM domain's SPF policy for the egress address. */
export async function checkSpf(
  dns: DoctorDns,
  settings: DoctorSettings,
  egressIp: string | null,
): Promise<Finding> {
  const at = settings.from.lastIndexOf('@');
  const domain = canonicalName(at === -1 ? settings.from : settings.from.slice(at + 1));
  if (egressIp === null) {
    return finding('spf', 'skipped', `Not checked: the egress address is unknown (FROM domain ${domain}).`, {
      domain,
    });
  }
  const evaluation = await checkHost(dns, {
    ip: egressIp,
    domain,
    sender: settings.from,
    helo: settings.helo,
  });
  const details = { domain, ip: egressIp, ...evaluation };
  const mechanism = parseIp(egressIp)?.family === 6 ? 'ip6' : 'ip4';
  const addIt = `add "${mechanism}:${egressIp}" to the v=spf1 record of ${domain} (before its "all")`;
  switch (evaluation.result) {
    case 'pass':
      return finding(
        'spf',
        'pass',
        `The SPF record of ${domain} covers ${egressIp} (${describeMatch(evaluation)}).`,
        details,
      );
    case 'none':
      return finding(
        'spf',
        'warn',
        `${evaluation.problem ?? `${domain} publishes no SPF record`}: receivers cannot tell the probe's sender is allowed to use ${egressIp}.`,
        details,
        `Publish a TXT record on ${domain}: "v=spf1 ${mechanism}:${egressIp} -all" (or set MAILVET_SMTP_FROM to an address at a domain you control).`,
      );
    case 'fail':
      return finding(
        'spf',
        'fail',
        `The SPF record of ${domain} does not allow ${egressIp} and ends in a hard fail (${describeMatch(evaluation)}): receivers may refuse the probe at MAIL FROM.`,
        details,
        `To fix it, ${addIt}.`,
      );
    case 'softfail':
    case 'neutral':
      return finding(
        'spf',
        'warn',
        `The SPF record of ${domain} does not cover ${egressIp} (result ${evaluation.result}${evaluation.matched ? `, ${describeMatch(evaluation)}` : ''}).`,
        details,
        `To fix it, ${addIt}.`,
      );
    case 'permerror':
      return finding(
        'spf',
        'fail',
        `The SPF record of ${domain} is broken: ${evaluation.problem}. Receivers treat it as a permanent error.`,
        details,
        /lookups/.test(evaluation.problem ?? '')
          ? `Reduce the includes and a/mx mechanisms (flatten them into ip4/ip6), or simply ${addIt}.`
          : `Correct the record of ${domain}.`,
      );
    case 'temperror':
      return finding(
        'spf',
        'warn',
        `The SPF record of ${domain} could not be evaluated: ${evaluation.problem}.`,
        details,
        'See the resolver check, then run the doctor again.',
      );
  }
}

function describeMatch(evaluation: SpfEvaluation): string {
  const matched = evaluation.matched;
  if (matched === null) return 'nothing matched';
  const chain = [...matched.via, matched.domain].join(' → ');
  return matched.via.length > 0
    ? `"${matched.mechanism}" reached through ${chain}`
    : `"${matched.mechanism}"`;
}
