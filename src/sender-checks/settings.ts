/**
 * What the sender-domain checks are told: where to dial MX hosts, which blocklists to ask, and
 * their bounds. Built from configuration by the composition root.
 */

/** The sender-domain checks' settings. */
export interface SenderCheckSettings {
  /** Port used for MX hosts (MAILVET_SMTP_PORT). */
  smtpPort: number;
  /** The EHLO name of the STARTTLS dial (MAILVET_SMTP_HELO, else the host name). */
  helo: string;
  /** Dial MX addresses in private and loopback ranges (MAILVET_SMTP_ALLOW_PRIVATE, tests only). */
  allowPrivate: boolean;
  /** IP blocklist zones (MAILVET_DNSBL_ZONES). */
  ipZones: readonly string[];
  /** Domain blocklist zones (MAILVET_DNSBL_DOMAIN_ZONES). */
  domainZones: readonly string[];
  /**
   * Names whose MX must exist (MAILVET_DNS_CONTROL_NAMES): when none is found, the resolver is not
   * believed and no grade is given; empty turns the control off.
   */
  controlNames: readonly string[];
  /** MX hosts looked at, best preference first, and addresses dialled per host. */
  maxMxHosts: number;
  addressesPerHost: number;
  /** Addresses looked up in the IP zones at most (MX first, then the SPF-listed ones). */
  maxBlocklistAddresses: number;
  /** One STARTTLS conversation's bound, and the policy fetch's, ms. */
  dialTimeoutMs: number;
  fetchTimeoutMs: number;
  /** The whole check's bound, ms: what has not finished by then is reported as such. */
  deadlineMs: number;
}

/** Defaults for what configuration does not name. */
export const SENDER_CHECK_DEFAULTS = {
  maxMxHosts: 5,
  addressesPerHost: 2,
  maxBlocklistAddresses: 10,
  dialTimeoutMs: 8_000,
  fetchTimeoutMs: 8_000,
  deadlineMs: 20_000,
} as const;
