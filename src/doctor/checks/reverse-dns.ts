/**
 * Reverse DNS of the egress address: mail servers (Gmail, Outlook) refuse or distrust a client
 * without a PTR, or whose PTR name does not resolve back to it (forward-confirmed reverse DNS), and
 * many compare that name with the EHLO name.
 */
import { ipText, parseIp } from '../../mail-auth/spf/ip-address.ts';
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';
import { canonicalName, type DoctorSettings } from '../settings.ts';

/** Checks PTR, FCrDNS and PTR = HELO for `egressIp`. */
export async function checkReverseDns(
  dns: DoctorDns,
  settings: DoctorSettings,
  egressIp: string | null,
): Promise<Finding> {
  if (egressIp === null) {
    return finding('reverse_dns', 'skipped', 'Not checked: the egress address is unknown.', {});
  }
  const helo = canonicalName(settings.helo);
  const details: Record<string, unknown> = { ip: egressIp, helo };
  const ptr = await dns.resolvePtr(egressIp);
  if (ptr.kind === 'error') {
    return finding(
      'reverse_dns',
      'warn',
      `Could not look up the PTR of ${egressIp} (${ptr.failure}).`,
      details,
      'See the resolver check, then run the doctor again.',
    );
  }
  const names = ptr.kind === 'ok' ? [...new Set(ptr.records.map(canonicalName))] : [];
  details.ptr = names;
  const askProvider = `Ask whoever owns ${egressIp} (your hosting provider; often a "reverse DNS" field in its panel) to set its PTR to ${helo}`;
  if (names.length === 0) {
    return finding(
      'reverse_dns',
      'fail',
      `${egressIp} has no PTR (reverse DNS) record: many mail servers refuse such clients.`,
      details,
      `${askProvider}, and make ${helo} resolve to ${egressIp}.`,
    );
  }
  const confirmed = await forwardConfirmed(dns, names, egressIp);
  details.confirmed = confirmed;
  const heloMatch = names.includes(helo);
  if (confirmed.length === 0) {
    return finding(
      'reverse_dns',
      'fail',
      `The PTR of ${egressIp} is ${names.join(', ')}, but that name does not resolve back to ${egressIp} (no forward-confirmed reverse DNS).`,
      details,
      `Publish an A (or AAAA) record for ${names[0]} pointing at ${egressIp}${heloMatch ? '' : `, or ${askProvider.charAt(0).toLowerCase()}${askProvider.slice(1)} and point ${helo} at ${egressIp}`}.`,
    );
  }
  if (!heloMatch) {
    const unset = settings.heloConfigured ? '' : ' (MAILVET_SMTP_HELO is unset: the host name is used)';
    return finding(
      'reverse_dns',
      'warn',
      `The PTR of ${egressIp} is ${confirmed.join(', ')} (confirmed), but the probe says EHLO ${helo}${unset}: mail servers compare the two.`,
      details,
      `Set MAILVET_SMTP_HELO=${confirmed[0]}, or change the PTR to ${helo}.`,
    );
  }
  return finding(
    'reverse_dns',
    'pass',
    `The PTR of ${egressIp} is ${helo}, which resolves back to it and matches EHLO.`,
    details,
  );
}

/** The PTR names whose A/AAAA records include `ip`. */
async function forwardConfirmed(dns: DoctorDns, names: readonly string[], ip: string): Promise<string[]> {
  const wanted = parseIp(ip);
  const results = await Promise.all(
    names.slice(0, 5).map(async (name) => {
      const answer = wanted?.family === 6 ? await dns.resolveAaaa(name) : await dns.resolveA(name);
      const addresses = answer.kind === 'ok' ? answer.records : [];
      return addresses.some((address) => {
        const parsed = parseIp(address);
        return parsed !== null && wanted !== null && ipText(parsed) === ipText(wanted);
      })
        ? name
        : null;
    }),
  );
  return results.filter((name): name is string => name !== null);
}
