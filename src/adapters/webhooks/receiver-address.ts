/**
 * Where a webhook receiver is: the URL's host, its addresses (an address literal's own, or what
 * `dns.lookup` says, which honours /etc/hosts as the connection would) and which of them may be
 * connected to. One rule for the check made when a list is created and the one made at every
 * delivery, so a URL is never accepted by one and refused by the other for the same answer.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { probeRefusal } from '../../net/address-guard.ts';

/** One address of the receiver, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`dns.lookup`, all addresses): what the connection itself would use. */
export const systemResolve: ResolveHost = (hostname) => lookup(hostname, { all: true });

/** The URL's host as a resolver or `isIP` takes it: an IPv6 literal without its brackets. */
export function receiverHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The host's own address when it is an IP literal (no lookup needed); null for a name. */
export function literalAddress(host: string): ResolvedAddress[] | null {
  const family = isIP(host);
  return family === 0 ? null : [{ address: host, family }];
}

/**
 * The one address to connect to: IPv4 first (one address is tried, the one checked, and IPv6 is
 * the likelier to be unroutable), the first not refused, or the first at all when private ones
 * are allowed; undefined when none may be used.
 */
export function usableAddress(
  addresses: readonly ResolvedAddress[],
  allowPrivate: boolean,
): ResolvedAddress | undefined {
  const ordered = [...addresses].sort((a, b) => a.family - b.family);
  return ordered.find((a) => allowPrivate || probeRefusal(a.address) === null);
}

/** Why each address is refused, in connection order: `127.0.0.1: loopback, ::1: loopback`. */
export function refusalsOf(addresses: readonly ResolvedAddress[]): string {
  return [...addresses]
    .sort((a, b) => a.family - b.family)
    .map((a) => `${a.address}: ${probeRefusal(a.address)}`)
    .join(', ');
}
