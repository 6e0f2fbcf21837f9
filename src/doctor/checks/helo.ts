/**
 * The EHLO name: receivers reject or distrust a name that is not fully qualified or does not
 * resolve, and compare it with the egress address's PTR (the reverse_dns check).
 */
import { type Finding, finding } from '../finding.ts';
import type { DoctorDns } from '../ports.ts';
import { canonicalName, type DoctorSettings, isFullyQualified } from '../settings.ts';
import type { HostDial } from './port-25.ts';

/** Checks MAILVET_SMTP_HELO (or the host name standing in for it) and how servers took it. */
export async function checkHelo(
  dns: DoctorDns,
  settings: DoctorSettings,
  dials: readonly HostDial[],
): Promise<Finding> {
  const helo = canonicalName(settings.helo);
  const details: Record<string, unknown> = { helo, configured: settings.heloConfigured };
  const unset = settings.heloConfigured
    ? ''
    : `MAILVET_SMTP_HELO is unset, so the probe says EHLO ${helo} (this host's name). `;
  const setIt =
    'Set MAILVET_SMTP_HELO to a fully qualified name of this host that resolves to the egress address and that its PTR points to.';
  if (!isFullyQualified(helo)) {
    return finding(
      'helo',
      'fail',
      `${unset}"${helo}" is not a fully qualified domain name: many mail servers refuse it.`,
      details,
      setIt,
    );
  }
  const rejected = dials.flatMap((dial) =>
    dial.outcome.kind === 'greeted' && dial.outcome.ehlo !== null && dial.outcome.ehlo.code >= 500
      ? [`${dial.host}: ${dial.outcome.ehlo.code} ${dial.outcome.ehlo.text.split('\n')[0]}`]
      : [],
  );
  if (rejected.length > 0) {
    details.rejected = rejected;
    return finding(
      'helo',
      'fail',
      `${unset}Mail servers refused EHLO ${helo} (${rejected.join('; ')}).`,
      details,
      setIt,
    );
  }
  const [a, aaaa] = await Promise.all([dns.resolveA(helo), dns.resolveAaaa(helo)]);
  const addresses = [...(a.kind === 'ok' ? a.records : []), ...(aaaa.kind === 'ok' ? aaaa.records : [])];
  details.addresses = addresses;
  if (addresses.length === 0) {
    if (a.kind === 'error' && aaaa.kind !== 'ok') {
      return finding(
        'helo',
        'warn',
        `${unset}Could not look up ${helo} (${a.failure}).`,
        details,
        'See the resolver check, then run the doctor again.',
      );
    }
    return finding(
      'helo',
      'warn',
      `${unset}${helo} does not resolve to any address: some mail servers distrust such a name.`,
      details,
      `Publish an A record for ${helo} pointing at the egress address, or ${setIt.charAt(0).toLowerCase()}${setIt.slice(1)}`,
    );
  }
  if (!settings.heloConfigured) {
    return finding(
      'helo',
      'warn',
      `${unset}It resolves, but the host name is rarely the name mail servers expect.`,
      details,
      setIt,
    );
  }
  return finding(
    'helo',
    'pass',
    `EHLO ${helo}: a fully qualified name that resolves (${addresses.join(', ')}).`,
    details,
  );
}
