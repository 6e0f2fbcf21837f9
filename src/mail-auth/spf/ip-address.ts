/**
 * IP addresses as numbers, for CIDR comparison in SPF's `ip4`, `ip6`, `a` and `mx` mechanisms.
 * Pure parsing: no socket library, so the evaluator stays a function of its DNS answers.
 */

/** A parsed address: its family and its value as a 32- or 128-bit number. */
export interface IpValue {
  family: 4 | 6;
  value: bigint;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Parses an IPv4 or IPv6 address; IPv4-mapped IPv6 (`::ffff:192.0.2.1`) counts as IPv4. */
export function parseIp(text: string): IpValue | null {
  const address = text.trim();
  if (IPV4.test(address)) return { family: 4, value: ipv4Value(address) };
  const v6 = parseIpv6(address);
  if (v6 === null) return null;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((sum, octet) => (sum << 8n) | BigInt(Number(octet)), 0n);
}

function parseIpv6(address: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(address) || address.split('::').length > 2) return null;
  let text = address;
  // A dotted IPv4 tail stands for the last two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    if (!IPV4.test(tail[1]!)) return null;
    const v4 = ipv4Value(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(Number.parseInt(group, 16));
  }
  return value;
}

/** Whether `address` lies in `network`/`prefix` (same family only). */
export function inNetwork(address: IpValue, network: IpValue, prefix: number): boolean {
  if (address.family !== network.family) return false;
  const bits = address.family === 4 ? 32n : 128n;
  const shift = bits - BigInt(prefix);
  return address.value >> shift === network.value >> shift;
}

/** The address in canonical text: dotted IPv4, or eight IPv6 groups (no `::` compression). */
export function ipText(address: IpValue): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => ((address.value >> shift) & 0xffn).toString()).join('.');
  }
  return Array.from({ length: 8 }, (_, i) =>
    ((address.value >> BigInt(112 - i * 16)) & 0xffffn).toString(16),
  ).join(':');
}

/** The DNS name under which a DNSBL lists `address` (reversed octets or nibbles, RFC 5782 §2). */
export function reversedName(address: IpValue): string {
  if (address.family === 4) return ipText(address).split('.').reverse().join('.');
  return address.value.toString(16).padStart(32, '0').split('').reverse().join('.');
}
