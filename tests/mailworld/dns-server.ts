/**
 * The mail world's DNS: a real authoritative server (UDP and TCP on one random port of 127.0.0.1,
 * built with dns2) answering from a plain zone object. Tests point `MAILVET_DNS_SERVERS` (or
 * `NodeDnsResolver`'s `servers`) at `world.servers`.
 */
import type { AddressInfo, Socket } from 'node:net';
import dns2, { type DnsHandler } from 'dns2';

const { Packet } = dns2;
type Request = InstanceType<typeof Packet>;
type Resource = Request['answers'][number];

/** How the server misbehaves for a name. */
export type ZoneFailure = 'servfail' | 'refused' | 'blackhole';

/** The records and behaviour of one owner name. An entry with no records exists but has no data. */
export interface ZoneEntry {
  /** TTL of every record of this name, seconds (default 300). */
  ttl?: number;
  mx?: Array<{ exchange: string; priority: number }>;
  a?: string[];
  aaaa?: string[];
  /** The name is an alias: every query is answered with this CNAME, then the target's records. */
  cname?: string;
  txt?: string[];
  /** PTR names (owner `5.0.0.127.in-addr.arpa` for 127.0.0.5). */
  ptr?: string[];
  /** Answer with SERVFAIL or REFUSED, or never answer ('blackhole'). */
  fail?: ZoneFailure;
  /** Restrict `fail` to these query types (default: all). */
  failTypes?: Array<'MX' | 'A' | 'AAAA'>;
}

/**
 * Zone data keyed by lower-case owner name without trailing dot. A key `*.bench.test` is a
 * wildcard for every name under `bench.test` that has no entry of its own. Any other name is
 * NXDOMAIN (or NODATA when a name below it exists).
 */
export type Zones = Record<string, ZoneEntry>;

/** A running DNS world. */
export interface DnsWorld {
  address: string;
  port: number;
  /** `127.0.0.1:PORT`, the form `MAILVET_DNS_SERVERS` takes. */
  servers: string;
  /** The live zone data: tests may add or change entries while the server runs. */
  zones: Zones;
  /** Queries received so far (every transport, answered or not). */
  readonly queries: number;
  close(): Promise<void>;
}

/** SOA minimum (RFC 2308 negative TTL) of the `.test` zones. */
export const NEGATIVE_TTL_SECONDS = 120;

/** The built-in test zones (reserved `.test` TLD, RFC 2606). */
export function testZones(): Zones {
  return {
    'multi-mx.test': {
      ttl: 600,
      mx: [
        { exchange: 'b.multi-mx.test', priority: 20 },
        { exchange: 'a.multi-mx.test', priority: 10 },
        { exchange: 'c.multi-mx.test', priority: 30 },
      ],
    },
    'a.multi-mx.test': { a: ['127.0.0.1'] },
    'b.multi-mx.test': { a: ['127.0.0.1'] },
    'c.multi-mx.test': { a: ['127.0.0.1'] },
    // RFC 7505: "MX 0 ." says the domain accepts no mail.
    'nullmx.test': { mx: [{ exchange: '', priority: 0 }], a: ['192.0.2.1'] },
    'a-only.test': { ttl: 90, a: ['192.0.2.10', '192.0.2.11'] },
    'aaaa-only.test': { aaaa: ['2001:db8::10'] },
    'nodata.test': { txt: ['v=spf1 -all'] },
    'servfail.test': { fail: 'servfail' },
    'refused.test': { fail: 'refused' },
    'blackhole.test': { fail: 'blackhole' },
    // No MX, and the A fallback fails: the failure is decisive, never "no mail host".
    'a-servfail.test': { txt: ['no mx here'], fail: 'servfail', failTypes: ['A', 'AAAA'] },
    // No MX, A answers, AAAA fails: the A record alone makes an implicit MX.
    'aaaa-servfail.test': { a: ['192.0.2.20'], fail: 'servfail', failTypes: ['AAAA'] },
    'cname-mx.test': { mx: [{ exchange: 'mx.cname-mx.test', priority: 10 }] },
    'mx.cname-mx.test': { cname: 'real-mx.cname-mx.test' },
    'real-mx.cname-mx.test': { a: ['127.0.0.2'] },
    // bücher.test in A-label form.
    'xn--bcher-kva.test': { mx: [{ exchange: 'mx.xn--bcher-kva.test', priority: 5 }] },
    'mx.xn--bcher-kva.test': { a: ['127.0.0.3'] },
    // The resolver health check's default control names (MAILVET_DNS_CONTROL_NAMES) exist on the
    // internet, so they exist here: a server pointed at the world finds its resolver healthy.
    // Their MX hosts have no address, so nothing is ever probed there.
    'gmail.com': { mx: [{ exchange: 'gmail-smtp-in.l.google.com', priority: 5 }] },
    'outlook.com': { mx: [{ exchange: 'outlook-com.olc.protection.outlook.com', priority: 5 }] },
    'yahoo.com': { mx: [{ exchange: 'mta5.am0.yahoodns.net', priority: 1 }] },
    // Generated domains for benchmarks: d1.bench.test ... dN.bench.test all have this MX.
    '*.bench.test': { ttl: 3600, mx: [{ exchange: 'mx.bench.test', priority: 10 }] },
    'mx.bench.test': { ttl: 3600, a: ['127.0.0.1'] },
  };
}

const QTYPE_NAMES = new Map<number, 'MX' | 'A' | 'AAAA'>([
  [Packet.TYPE.MX, 'MX'],
  [Packet.TYPE.A, 'A'],
  [Packet.TYPE.AAAA, 'AAAA'],
]);
const MAX_CNAME_CHAIN = 8;
// RFC 1035 §4.1.1 response codes (dns2 has them at runtime but not in its types).
const RCODE = { FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

function canonical(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The entry for `name`: its own, else the closest enclosing wildcard. */
function findEntry(zones: Zones, name: string): ZoneEntry | undefined {
  const own = zones[name];
  if (own) return own;
  for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
    const wildcard = zones[`*${name.slice(dot)}`];
    if (wildcard) return wildcard;
  }
  return undefined;
}

/** An empty non-terminal (a name below it exists) is NODATA, not NXDOMAIN (RFC 8020). */
function hasDescendant(zones: Zones, name: string): boolean {
  const suffix = `.${name}`;
  return Object.keys(zones).some((key) => key.endsWith(suffix) && !key.startsWith('*'));
}

function recordsOf(owner: string, entry: ZoneEntry, qtype: number): Resource[] {
  const base = { name: owner, class: Packet.CLASS.IN, ttl: entry.ttl ?? 300 };
  const make = (fields: Partial<Resource>) => new Packet.Resource({ ...base, ...fields });
  switch (qtype) {
    case Packet.TYPE.MX:
      return (entry.mx ?? []).map((mx) => make({ type: Packet.TYPE.MX, ...mx }));
    case Packet.TYPE.A:
      return (entry.a ?? []).map((address) => make({ type: Packet.TYPE.A, address }));
    case Packet.TYPE.AAAA:
      return (entry.aaaa ?? []).map((address) => make({ type: Packet.TYPE.AAAA, address }));
    case Packet.TYPE.TXT:
      // A TXT string over 255 octets goes out as several character-strings of one record (DKIM keys).
      return (entry.txt ?? []).map((data) =>
        make({ type: Packet.TYPE.TXT, data: data.match(/[\s\S]{1,255}/g) ?? [''] } as Partial<Resource>),
      );
    case Packet.TYPE.PTR:
      return (entry.ptr ?? []).map((domain) => make({ type: Packet.TYPE.PTR, domain }));
    default:
      return [];
  }
}

function soaFor(name: string): Resource {
  const apex = name.slice(name.lastIndexOf('.') + 1);
  return new Packet.Resource({
    name: apex,
    type: Packet.TYPE.SOA,
    class: Packet.CLASS.IN,
    ttl: NEGATIVE_TTL_SECONDS,
    primary: `ns.${apex}`,
    admin: `hostmaster.${apex}`,
    serial: 2024010101,
    refresh: 3600,
    retry: 600,
    expiration: 604800,
    minimum: NEGATIVE_TTL_SECONDS,
  });
}

/** Builds the response to `request`, or null when the name is a black hole. */
export function answerQuery(zones: Zones, request: Request): Request | null {
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  const question = request.questions[0];
  if (!question) {
    response.header.rcode = RCODE.FORMERR;
    return response;
  }
  const qname = canonical(question.name);
  let owner = question.name;
  let entry = findEntry(zones, qname);
  const failure = entry?.fail;
  const qtypeName = QTYPE_NAMES.get(question.type);
  if (entry && failure && (!entry.failTypes || (qtypeName && entry.failTypes.includes(qtypeName)))) {
    if (failure === 'blackhole') return null;
    response.header.rcode = failure === 'servfail' ? RCODE.SERVFAIL : RCODE.REFUSED;
    return response;
  }
  for (let hops = 0; entry?.cname && question.type !== Packet.TYPE.CNAME && hops < MAX_CNAME_CHAIN; hops++) {
    response.answers.push(
      new Packet.Resource({
        name: owner,
        type: Packet.TYPE.CNAME,
        class: Packet.CLASS.IN,
        ttl: entry.ttl ?? 300,
        domain: entry.cname,
      }),
    );
    owner = entry.cname;
    entry = findEntry(zones, canonical(owner));
  }
  if (!entry && response.answers.length === 0) {
    if (!hasDescendant(zones, qname)) response.header.rcode = RCODE.NXDOMAIN;
    response.authorities.push(soaFor(qname));
    return response;
  }
  const records = entry ? recordsOf(owner, entry, question.type) : [];
  response.answers.push(...records);
  if (response.answers.length === 0) response.authorities.push(soaFor(qname));
  return response;
}

/** Starts a DNS world on 127.0.0.1 serving the built-in test zones plus `zones` (which win). */
export async function startDnsWorld(zones: Zones = {}): Promise<DnsWorld> {
  const liveZones: Zones = { ...testZones(), ...zones };
  let queries = 0;
  const handler: DnsHandler = (request, send) => {
    queries++;
    const response = answerQuery(liveZones, request);
    // A send failure (client gone) is the client's problem, not the world's.
    if (response) send(response).catch(() => {});
  };
  const { udp, tcp, port } = await bindSamePort(handler);
  const address = '127.0.0.1';
  return {
    address,
    port,
    servers: `${address}:${port}`,
    zones: liveZones,
    get queries() {
      return queries;
    },
    close: () => closeBoth(udp, tcp),
  };
}

type UdpServer = ReturnType<typeof dns2.createUDPServer>;
type TcpServer = ReturnType<typeof dns2.createTCPServer> & { openSockets: Set<Socket> };

/** UDP on a random port, then TCP on the same one (c-ares retries truncated answers over TCP). */
async function bindSamePort(handler: DnsHandler): Promise<{ udp: UdpServer; tcp: TcpServer; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(handler);
    udp.on('requestError', () => {});
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    udp.on('error', () => {});
    const port = udp.address().port;
    const tcp = Object.assign(dns2.createTCPServer(handler), { openSockets: new Set<Socket>() });
    tcp.on('requestError', () => {});
    tcp.on('connection', (socket: Socket) => {
      tcp.openSockets.add(socket);
      socket.on('close', () => tcp.openSockets.delete(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => resolve());
      });
      tcp.on('error', () => {});
      if ((tcp.address() as AddressInfo).port !== port) throw new Error('TCP bound elsewhere');
      return { udp, tcp, port };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 10) throw error;
    }
  }
}

function closeBoth(udp: UdpServer, tcp: TcpServer): Promise<void> {
  const udpClosed = new Promise<void>((resolve) => udp.close(() => resolve()));
  const tcpClosed = new Promise<void>((resolve) => tcp.close(() => resolve()));
  for (const socket of tcp.openSockets) socket.destroy();
  return Promise.all([udpClosed, tcpClosed]).then(() => undefined);
}
