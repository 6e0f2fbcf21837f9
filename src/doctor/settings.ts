/**
 * What the host check is told: the identity the probe uses, where to test port 25, which blocklists
 * to ask, and its time bounds. Built from configuration by the composition root.
 */

/** The host check's settings. */
export interface DoctorSettings {
  /** Mail hosts to reach, `host[:port]` (MAILVET_DOCTOR_MX_HOSTS). */
  mxHosts: readonly string[];
  /** Port for entries without one (MAILVET_SMTP_PORT). */
  defaultPort: number;
  /** The EHLO name the probe uses, and whether MAILVET_SMTP_HELO set it (else the host name). */
  helo: string;
  heloConfigured: boolean;
  /** The probe's envelope sender (MAILVET_SMTP_FROM, or verify@<helo>). */
  from: string;
  /** DNS blocklist zones (MAILVET_DNSBL_ZONES). */
  dnsblZones: readonly string[];
  /** Names whose MX must exist (MAILVET_DNS_CONTROL_NAMES). */
  controlNames: readonly string[];
  /** The egress address as the operator states it (MAILVET_EGRESS_IP), instead of learning it. */
  egressIp?: string;
  /** Probes leave through a SOCKS5 proxy (MAILVET_SMTP_PROXY): these checks see direct egress only. */
  proxied: boolean;
  /** Bounds of each dial, ms. */
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** The whole run's bound, ms: a check still running then is reported as unfinished. */
  deadlineMs: number;
}

/** One place to connect to: a host name or IP address, and a port. */
export interface MxTarget {
  host: string;
  port: number;
  /** As configured, for messages. */
  label: string;
}

/** Reads `host[:port]` entries (`[2001:db8::1]:25` for IPv6); bad entries are returned apart. */
export function parseTargets(
  entries: readonly string[],
  defaultPort: number,
): { targets: MxTarget[]; bad: string[] } {
  const targets: MxTarget[] = [];
  const bad: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(entry);
    const plain = /^([A-Za-z0-9.-]+)(?::(\d+))?$/.exec(entry);
    const match = bracketed ?? plain;
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    if (!match || !Number.isInteger(port) || port < 1 || port > 65535) {
      bad.push(entry);
      continue;
    }
    targets.push({ host: match[1]!.toLowerCase().replace(/\.$/, ''), port, label: entry });
  }
  return { targets, bad };
}

/** `name` without a trailing dot, lower-cased: the form names are compared in. */
export function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** Whether `name` is a fully qualified domain name (at least two labels, letters/digits/hyphens). */
export function isFullyQualified(name: string): boolean {
  const labels = canonicalName(name).split('.');
  return (
    labels.length >= 2 &&
    labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!)
  );
}
