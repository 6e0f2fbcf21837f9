/**
 * The mail world: the DNS world plus one SMTP host per behaviour, each on its own loopback address
 * (127.0.0.2, 127.0.0.3, ...) and all on one port, since the probe has one port for every MX host
 * (`MAILVET_SMTP_PORT`). A domain per behaviour points at its host. Any test or benchmark can start
 * one; several can run at once (each on its own port).
 */
import net from 'node:net';
import { BEHAVIOURS, type BehaviourName, type SmtpBehaviour } from './behaviours.ts';
import { type DnsWorld, startDnsWorld, type Zones } from './dns-server.ts';
import { listen } from './raw-smtp.ts';
import { type SmtpHost, startSmtpHost } from './smtp-server.ts';

/** The domain wired to each behaviour's host. */
export const WORLD_DOMAINS: Readonly<Record<BehaviourName, string>> = {
  'accept-known': 'accept.test',
  'catch-all': 'catchall.test',
  greylist: 'greylist.test',
  'mailbox-full': 'full.test',
  disabled: 'disabled.test',
  blocklist: 'blocklist.test',
  'blocklist-banner': 'blockbanner.test',
  tarpit: 'tarpit.test',
  'drop-after-rcpt': 'drop.test',
  'drop-at-rcpt': 'dropsilent.test',
  'slow-banner': 'slowbanner.test',
  starttls: 'tls.test',
  'reject-mail-from': 'rejectfrom.test',
  'too-many-recipients': 'toomany.test',
  'reply-delay': 'slow.test',
  'helo-only': 'helo.test',
  gmail: 'gmail.test',
  'm365-dbeb': 'm365.test',
  'm365-open': 'm365open.test',
  'outlook-com': 'outlook.test',
  yahoo: 'yahoo.test',
  icloud: 'icloud.test',
  'gateway-accept-all': 'gateway.test',
  'gateway-block': 'gatewayblock.test',
  'policy-reject': 'policy.test',
};

/** Nothing listens here: `deadfirst.test`'s first MX. */
export const DEAD_MX_ADDRESS = '127.0.0.250';
/** `private-mx.test`'s MX: a probe must refuse it without connecting (SSRF guard). */
export const PRIVATE_MX_ADDRESS = '10.0.0.1';

/** Parameters of one host, without its name (the world sets it from the domain). */
export type HostTuning = {
  [K in BehaviourName]?: Omit<Extract<SmtpBehaviour, { behaviour: K }>, 'behaviour' | 'name'>;
};

/** How to start a world. */
export interface MailWorldOptions {
  /** Extra or replacement DNS entries. */
  zones?: Zones;
  /** Known mailboxes of every host (local parts); default WORLD_MAILBOXES. */
  mailboxes?: readonly string[];
  /** Per-behaviour parameters (greylist delay, banner delay, reply delay, recipient limit...). */
  tune?: HostTuning;
  /** The common SMTP port; default a random port free on every address. */
  port?: number;
}

/** A running mail world. */
export interface MailWorld {
  dns: DnsWorld;
  /** For `MAILVET_DNS_SERVERS`. */
  servers: string;
  smtpPort: number;
  hosts: Record<BehaviourName, SmtpHost>;
  domains: Readonly<Record<BehaviourName, string>>;
  /** What to merge into the environment of the service under test. */
  env: Record<string, string>;
  /** Zeroes every host's counters (and greylist memory). */
  resetStats(): void;
  close(): Promise<void>;
}

const PORT_ATTEMPTS = 20;

/** The loopback address of the i-th behaviour. */
function hostAddress(index: number): string {
  return `127.0.0.${index + 2}`;
}

/** Starts the DNS world and one SMTP host per behaviour. */
export async function startMailWorld(options: MailWorldOptions = {}): Promise<MailWorld> {
  const hosts = await startHostsOnOnePort(options);
  const first = Object.values(hosts)[0];
  const smtpPort = first?.port ?? 0;
  let dns: DnsWorld;
  try {
    dns = await startDnsWorld({ ...worldZones(), ...options.zones });
  } catch (error) {
    await closeAll(Object.values(hosts));
    throw error;
  }
  return {
    dns,
    servers: dns.servers,
    smtpPort,
    hosts,
    domains: WORLD_DOMAINS,
    env: {
      MAILVET_DNS_SERVERS: dns.servers,
      MAILVET_SMTP_PORT: String(smtpPort),
      MAILVET_SMTP_ALLOW_PRIVATE: 'true',
      MAILVET_SMTP_CONNECT_TIMEOUT_MS: '500',
      MAILVET_SMTP_TIMEOUT_MS: '1000',
      MAILVET_SMTP_PROBE_TIMEOUT_MS: '3000',
      MAILVET_DNS_TIMEOUT_MS: '500',
      MAILVET_DNS_TRIES: '1',
    },
    resetStats: () => {
      for (const host of Object.values(hosts)) host.reset();
    },
    close: async () => {
      await Promise.all([dns.close(), closeAll(Object.values(hosts))]);
    },
  };
}

/** The zones of the behaviour domains, `deadfirst.test` and `private-mx.test`. */
export function worldZones(): Zones {
  const zones: Zones = {};
  BEHAVIOURS.forEach((behaviour, index) => {
    const domain = WORLD_DOMAINS[behaviour];
    zones[domain] = { mx: [{ exchange: `mx.${domain}`, priority: 10 }] };
    zones[`mx.${domain}`] = { a: [hostAddress(index)] };
  });
  zones['deadfirst.test'] = {
    mx: [
      { exchange: 'mx1.deadfirst.test', priority: 10 },
      { exchange: 'mx2.deadfirst.test', priority: 20 },
    ],
  };
  zones['mx1.deadfirst.test'] = { a: [DEAD_MX_ADDRESS] };
  zones['mx2.deadfirst.test'] = { a: [hostAddress(BEHAVIOURS.indexOf('accept-known'))] };
  zones['private-mx.test'] = { mx: [{ exchange: 'mx.private-mx.test', priority: 10 }] };
  zones['mx.private-mx.test'] = { a: [PRIVATE_MX_ADDRESS] };
  return zones;
}

function behaviourOf(name: BehaviourName, options: MailWorldOptions): SmtpBehaviour {
  const tuning = options.tune?.[name] ?? {};
  const mailboxes = options.mailboxes ? { mailboxes: options.mailboxes } : {};
  return { ...mailboxes, ...tuning, behaviour: name, name: `mx.${WORLD_DOMAINS[name]}` } as SmtpBehaviour;
}

/**
 * Binds the first host on a random port (or the one asked for), then every other host and the
 * dead address on that same port; a port taken on any address means starting over on another.
 */
async function startHostsOnOnePort(options: MailWorldOptions): Promise<Record<BehaviourName, SmtpHost>> {
  const [firstName, ...otherNames] = BEHAVIOURS;
  if (!firstName) throw new Error('no behaviours');
  for (let attempt = 1; ; attempt++) {
    const first = await startSmtpHost({
      ...behaviourOf(firstName, options),
      host: hostAddress(0),
      port: options.port ?? 0,
    });
    const others = await Promise.allSettled(
      otherNames.map((name, index) =>
        startSmtpHost({ ...behaviourOf(name, options), host: hostAddress(index + 1), port: first.port }),
      ),
    );
    const started = [
      first,
      ...others.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
    ];
    const failure = others.find((result) => result.status === 'rejected');
    const deadIsFree = failure ? false : await portIsFree(DEAD_MX_ADDRESS, first.port);
    if (!failure && deadIsFree) {
      return Object.fromEntries(started.map((host) => [host.behaviour, host])) as Record<
        BehaviourName,
        SmtpHost
      >;
    }
    await closeAll(started);
    if (options.port !== undefined || attempt >= PORT_ATTEMPTS) {
      throw failure?.reason ?? new Error(`${DEAD_MX_ADDRESS}:${first.port} is in use`);
    }
  }
}

/** Whether nothing listens on `host:port` (bound for a moment to find out). */
async function portIsFree(host: string, port: number): Promise<boolean> {
  const probe = net.createServer();
  try {
    await listen(probe, port, host);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return true;
  } catch {
    return false;
  }
}

async function closeAll(hosts: SmtpHost[]): Promise<void> {
  await Promise.all(hosts.map((host) => host.close()));
}
