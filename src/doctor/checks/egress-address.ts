/**
 * The egress address: the one mail servers see, which PTR, blocklists and SPF are about. Without an
 * outside discovery service it is learned from the SMTP conversation: many servers echo the client
 * address in their EHLO reply ("mx.google.com at your service, [203.0.113.5]"). Failing that, the
 * socket's own address is used, which behind NAT is not the one the world sees.
 */
import { ipText, parseIp } from '../../mail-auth/spf/ip-address.ts';
import { probeRefusal } from '../../net/address-guard.ts';
import { type Finding, finding } from '../finding.ts';
import type { DoctorSettings } from '../settings.ts';
import type { HostDial } from './port-25.ts';

/** Where the egress address came from. */
export type EgressSource = 'configured' | 'server_echo' | 'local_socket';

/** The address, its source, and the finding about it. */
export interface EgressResult {
  finding: Finding;
  /** The address the address-based checks use; null when unknown or not worth asking about. */
  ip: string | null;
  source: EgressSource | null;
}

const PROXY_NOTE =
  " MAILVET_SMTP_PROXY is set: probes leave through the proxy, and these checks are of this host's direct egress only.";

/** An IP address in brackets in the first line of a reply, as servers echo the client's. */
export function echoedAddress(text: string): string | null {
  const firstLine = text.split('\n')[0] ?? '';
  for (const match of firstLine.matchAll(/\[(?:IPv6:)?([0-9A-Fa-f:.]+)\]/g)) {
    const parsed = parseIp(match[1]!);
    if (parsed !== null) return ipText(parsed);
  }
  return null;
}

/** Decides the egress address from the override or the dials. */
export function learnEgress(dials: readonly HostDial[], settings: DoctorSettings): EgressResult {
  const note = settings.proxied ? PROXY_NOTE : '';
  const proxied = { proxied: settings.proxied };
  if (settings.egressIp !== undefined) {
    const parsed = parseIp(settings.egressIp);
    if (parsed === null) {
      return {
        finding: finding(
          'egress_address',
          'fail',
          `MAILVET_EGRESS_IP "${settings.egressIp}" is not an IP address.${note}`,
          proxied,
          "Set MAILVET_EGRESS_IP to this host's public IPv4 or IPv6 address, or unset it.",
        ),
        ip: null,
        source: null,
      };
    }
    const ip = ipText(parsed);
    return {
      finding: finding(
        'egress_address',
        'pass',
        `The egress address is ${ip} (as set in MAILVET_EGRESS_IP).${note}`,
        { ip, source: 'configured', ...proxied },
      ),
      ip,
      source: 'configured',
    };
  }
  const echoed = new Set<string>();
  const local = new Set<string>();
  for (const dial of dials) {
    if (dial.outcome.kind !== 'greeted') continue;
    const seen = echoedAddress(dial.outcome.ehlo?.text ?? '') ?? echoedAddress(dial.outcome.banner.text);
    if (seen !== null) echoed.add(seen);
    if (dial.outcome.localAddress !== null) {
      const parsed = parseIp(dial.outcome.localAddress);
      if (parsed !== null) local.add(ipText(parsed));
    }
  }
  if (echoed.size > 0) {
    const [ip, ...others] = [...echoed];
    const details = { ip, source: 'server_echo', seen: [...echoed], ...proxied };
    if (others.length > 0) {
      return {
        finding: finding(
          'egress_address',
          'warn',
          `Mail servers saw this host at several addresses (${[...echoed].join(', ')}): the checks below use ${ip}.${note}`,
          details,
          'Probes should leave from one address whose PTR, HELO and SPF agree; route outbound port 25 through one address.',
        ),
        ip: ip!,
        source: 'server_echo',
      };
    }
    return {
      finding: finding('egress_address', 'pass', `Mail servers see this host as ${ip}.${note}`, details),
      ip: ip!,
      source: 'server_echo',
    };
  }
  const [ip] = [...local];
  if (ip === undefined) {
    return {
      finding: finding(
        'egress_address',
        'skipped',
        `The egress address is unknown: no mail host answered.${note}`,
        proxied,
        "Set MAILVET_EGRESS_IP to this host's public address to run the address checks anyway.",
      ),
      ip: null,
      source: null,
    };
  }
  const details = { ip, source: 'local_socket', ...proxied };
  if (probeRefusal(ip) !== null) {
    // A private or loopback address says nothing about PTR or blocklists: those checks are skipped.
    return {
      finding: finding(
        'egress_address',
        'warn',
        `This host's own address is ${ip}, a private one: it sits behind NAT and the public address is unknown.${note}`,
        details,
        "Set MAILVET_EGRESS_IP to the public address mail servers see (the NAT gateway's).",
      ),
      ip: null,
      source: 'local_socket',
    };
  }
  return {
    finding: finding(
      'egress_address',
      'warn',
      `The egress address is ${ip} as seen from this host (no mail host echoed it; behind NAT it may differ).${note}`,
      details,
      'If mail servers see another address, set MAILVET_EGRESS_IP to it.',
    ),
    ip,
    source: 'local_socket',
  };
}
