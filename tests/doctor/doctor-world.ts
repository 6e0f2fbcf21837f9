/**
 * The host check's test world: a DNS server with the egress address's PTR, the HELO name, the FROM
 * domain's SPF, a blocklist zone and a control name, and an SMTP host on 127.0.0.2 whose EHLO reply
 * echoes the client's address ("[127.0.0.1]"), as Gmail's does.
 */
import net from 'node:net';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';
import { type SmtpHost, startSmtpHost } from '../mailworld/smtp-server.ts';

/** Loopback connections to 127.0.0.2 leave from 127.0.0.1: the egress address the host sees. */
export const EGRESS = '127.0.0.1';
export const HELO = 'mx-out.doctor.test';
export const FROM = 'verify@doctor.test';
export const DNSBL_ZONE = 'bl.doctor.test';
export const CONTROL = 'control.doctor.test';

/** Zones in which every check passes; tests change them to make one fail. */
export function fitZones(): Zones {
  return {
    '1.0.0.127.in-addr.arpa': { ptr: [HELO] },
    [HELO]: { a: [EGRESS] },
    'doctor.test': { txt: ['v=spf1 ip4:127.0.0.0/24 -all'] },
    // RFC 5782's test entry: the zone works.
    [`2.0.0.127.${DNSBL_ZONE}`]: { a: ['127.0.0.2'] },
    [CONTROL]: { mx: [{ exchange: 'mx.control.doctor.test', priority: 10 }] },
  };
}

export interface DoctorWorld {
  dns: DnsWorld;
  smtp: SmtpHost;
  /** The environment of a fit host in this world. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the DNS server and the SMTP host. */
export async function startDoctorWorld(): Promise<DoctorWorld> {
  const dns = await startDnsWorld(fitZones());
  const smtp = await startSmtpHost({ host: '127.0.0.2', behaviour: 'accept-known' });
  return {
    dns,
    smtp,
    env: {
      MAILVET_DNS_SERVERS: dns.servers,
      // Generous: a busy machine must not turn a fit world's answers into timeouts.
      MAILVET_DNS_TIMEOUT_MS: '2000',
      MAILVET_DNS_TRIES: '2',
      MAILVET_SMTP_HELO: HELO,
      MAILVET_SMTP_FROM: FROM,
      MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${smtp.port}`,
      MAILVET_DNSBL_ZONES: DNSBL_ZONE,
      MAILVET_DNS_CONTROL_NAMES: CONTROL,
    },
    close: async () => {
      await smtp.close();
      await dns.close();
    },
  };
}

/** A loopback port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
