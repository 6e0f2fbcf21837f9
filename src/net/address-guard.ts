/**
 * The public-address (SSRF) guard of every outbound connection we make: the SMTP probe,
 * webhook deliveries and, next, integrations. A verifier that connects wherever DNS points is a
 * port scanner for anyone who controls a zone, so MX addresses outside the public unicast space
 * are refused unless the operator allows private ones. Ranges come from ipaddr.js `range()`
 * (IANA special-purpose registries) plus what it leaves out: the documentation and benchmarking
 * halves of its IPv4 "reserved", IPv4-compatible IPv6, the IPv4 embedded in NAT64, 6to4 and
 * Teredo addresses, and every IPv6 address outside 2000::/3 (nothing else is unicast).
 *
 * Parsing is our own and strict: DNS A/AAAA answers are canonical, so anything but a plain dotted
 * quad or a plain IPv6 address is 'invalid' (`127.1`, `0x7f.1`, `2130706433`, `010.0.0.1`, zone
 * ids, brackets). ipaddr.js is too lenient here: it reads those IPv4 spellings as inet_aton does,
 * and reads `::1.2.3.4` as if it were `::ffff:1.2.3.4`.
 */
import ipaddr from 'ipaddr.js';

/** Why an address may not be probed. */
export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'shared'
  | 'reserved'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'unique_local'
  | 'site_local';

/** IPv6 forms that carry an IPv4 address, refused for what the IPv4 address is. */
export type EmbeddingForm =
  | 'ipv4_mapped'
  | 'ipv4_compatible'
  | 'ipv4_translated'
  | 'nat64'
  | '6to4'
  | 'teredo';

export type ProbeRefusal = AddressClass | `${EmbeddingForm}:${AddressClass}` | 'invalid';

/** Null when the SMTP probe may connect to `ip`; else why not ('loopback', 'ipv4_mapped:private', 'invalid'...). */
export function probeRefusal(ip: string): ProbeRefusal | null {
  if (typeof ip !== 'string') return 'invalid';
  if (ip.includes(':')) {
    const parts = parseIpv6(ip);
    return parts === null ? 'invalid' : ipv6Refusal(parts);
  }
  const octets = parseIpv4(ip);
  return octets === null ? 'invalid' : ipv4Refusal(octets);
}

/**
 * True when the domain of an address is an IP address rather than a name: `[10.0.0.1]`,
 * `[IPv6:...]`, and bare forms (`127.0.0.1`, `0x7f.1`, `2130706433`, `::1`) that resolvers or
 * socket libraries may turn into an address without DNS. No TLD is numeric, so a numeric last
 * label is never a real mail domain. Such addresses are never probed.
 */
export function isAddressLiteralDomain(domain: string): boolean {
  if (typeof domain !== 'string' || domain.length === 0) return false;
  if (domain.startsWith('[') || domain.endsWith(']') || domain.includes(':')) return true;
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  const lastLabel = name.slice(name.lastIndexOf('.') + 1);
  return /^(?:[0-9]+|0x[0-9a-f]*)$/i.test(lastLabel);
}

const IPV4_PART = /^(?:0|[1-9][0-9]{0,2})$/;

function parseIpv4(text: string): number[] | null {
  if (text.length > 15) return null;
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets.push(value);
  }
  return octets;
}

const IPV6_GROUP = /^[0-9a-f]{1,4}$/i;

/** The eight 16-bit groups of an RFC 4291 §2.2 text address; null for anything else. */
function parseIpv6(text: string): number[] | null {
  if (text.length < 2 || text.length > 45 || !/^[0-9a-f:.]+$/i.test(text)) return null;
  let head = text;
  const tail: number[] = [];
  if (text.includes('.')) {
    const lastColon = text.lastIndexOf(':');
    const octets = parseIpv4(text.slice(lastColon + 1));
    if (octets === null) return null;
    head = text.slice(0, lastColon + 1);
    tail.push(((octets[0] ?? 0) << 8) | (octets[1] ?? 0), ((octets[2] ?? 0) << 8) | (octets[3] ?? 0));
    // `::1.2.3.4` leaves `::`, `1::1.2.3.4` leaves `1::`; `1:1.2.3.4` leaves `1:`, which is complete.
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const left = groupsOf(halves[0] ?? '');
  const right = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (left === null || right === null) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...left, ...tail] : null;
  if (given > 7) return null;
  return [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail];
}

function groupsOf(text: string): number[] | null {
  if (text === '') return [];
  const groups: number[] = [];
  for (const group of text.split(':')) {
    if (!IPV6_GROUP.test(group)) return null;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}

const IPV4_CLASSES: Readonly<Record<string, AddressClass | null>> = {
  unicast: null,
  as112: null,
  amt: null,
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'shared',
  private: 'private',
};

function ipv4Refusal(octets: readonly number[]): AddressClass | null {
  const range = new ipaddr.IPv4([...octets]).range();
  if (range !== 'reserved') {
    // A range name this table does not know (a newer ipaddr.js) is refused, not let through.
    const known = IPV4_CLASSES[range];
    return known === undefined ? 'reserved' : known;
  }
  const [a, b, c] = octets;
  // RFC 5737 documentation networks and RFC 2544 benchmarking, inside ipaddr.js's "reserved".
  if (
    (a === 192 && b === 0 && c === 2) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return 'documentation';
  if (a === 198 && (b === 18 || b === 19)) return 'benchmarking';
  return 'reserved';
}

const IPV6_CLASSES: Readonly<Record<string, AddressClass | null>> = {
  amt: null,
  as112v6: null,
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local',
  multicast: 'multicast',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'site_local',
  benchmarking: 'benchmarking',
};

function ipv6Refusal(parts: readonly number[]): ProbeRefusal | null {
  const p = (i: number) => parts[i] ?? 0;
  const range = new ipaddr.IPv6([...parts]).range();
  switch (range) {
    case 'ipv4Mapped':
      return embeddedRefusal('ipv4_mapped', p(6), p(7));
    case 'rfc6145':
      return embeddedRefusal('ipv4_translated', p(6), p(7));
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; 64:ff9b:1::/48 is local use.
      return p(2) === 0 ? embeddedRefusal('nat64', p(6), p(7)) : 'reserved';
    case '6to4':
      return embeddedRefusal('6to4', p(1), p(2));
    case 'teredo':
      // RFC 4380 §4: the client's IPv4 address, bit-inverted, in the last 32 bits.
      return embeddedRefusal('teredo', p(6) ^ 0xffff, p(7) ^ 0xffff);
    case 'reserved':
      return (p(0) === 0x2001 && p(1) === 0x0db8) || (p(0) === 0x3fff && p(1) < 0x1000)
        ? 'documentation'
        : 'reserved';
    case 'unicast':
      break;
    default: {
      const known = IPV6_CLASSES[range];
      return known === undefined ? 'reserved' : known;
    }
  }
  if (parts.slice(0, 6).every((group) => group === 0)) {
    // IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5.1) is deprecated and routes nowhere.
    return embeddedRefusal('ipv4_compatible', p(6), p(7)) ?? 'reserved';
  }
  return (p(0) & 0xe000) === 0x2000 ? null : 'reserved';
}

function embeddedRefusal(form: EmbeddingForm, high: number, low: number): ProbeRefusal | null {
  const inner = ipv4Refusal([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  return inner === null ? null : `${form}:${inner}`;
}
