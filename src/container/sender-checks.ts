/**
 * Wires the sender-domain checks (`POST /api/v1/domains/check`, `mailvet domain-check`) from
 * configuration: their own resolver (no cache: a sender fixing a record wants today's answer after
 * the report's own few minutes), the STARTTLS probe and the MTA-STS policy fetcher.
 */
import { hostname } from 'node:os';
import { HttpsPolicyFetcher } from '../adapters/mta-sts/policy-fetcher.ts';
import { StarttlsProbe } from '../adapters/starttls/starttls-probe.ts';
import type { Config } from '../config.ts';
import { DomainCheckService } from '../sender-checks/domain-check-service.ts';
import type { ConnectionGate } from '../sender-checks/ports.ts';
import { type DomainReport, runSenderChecks } from '../sender-checks/run-checks.ts';
import { SENDER_CHECK_DEFAULTS, type SenderCheckSettings } from '../sender-checks/settings.ts';
import type { UsageStore } from '../usage/ports.ts';
import { configuredResolver } from './dns.ts';

/** The checks' settings from configuration. */
export function senderCheckSettings(config: Config): SenderCheckSettings {
  return {
    ...SENDER_CHECK_DEFAULTS,
    smtpPort: config.MAILVET_SMTP_PORT,
    helo: config.MAILVET_SMTP_HELO ?? hostname(),
    allowPrivate: config.MAILVET_SMTP_ALLOW_PRIVATE,
    ipZones: config.MAILVET_DNSBL_ZONES,
    domainZones: config.MAILVET_DNSBL_DOMAIN_ZONES,
    controlNames: config.MAILVET_DNS_CONTROL_NAMES,
    dialTimeoutMs: Math.min(config.MAILVET_SMTP_TIMEOUT_MS, SENDER_CHECK_DEFAULTS.dialTimeoutMs),
  };
}

/** Test-only parts: trust of a test CA and the port the MTA-STS policy is served on. */
export interface SenderCheckTestParts {
  extraCa?: string | Buffer;
  mtaStsPort?: number;
}

/**
 * A function that checks one domain with this configuration; its MX dials draw on `gate` (the
 * verification probe's connection budget) when given.
 */
export function createDomainCheckRun(
  config: Config,
  parts: SenderCheckTestParts = {},
  gate?: ConnectionGate,
): (
  domain: string,
  selectors: readonly string[],
  signal?: AbortSignal,
  accountId?: string,
) => Promise<DomainReport> {
  const dns = configuredResolver(config);
  const settings = senderCheckSettings(config);
  const tlsProbe = new StarttlsProbe({ extraCa: parts.extraCa });
  const policyFetcher = new HttpsPolicyFetcher(dns, {
    allowPrivate: config.MAILVET_MTA_STS_ALLOW_PRIVATE,
    ...(parts.mtaStsPort !== undefined && { port: parts.mtaStsPort }),
    ...(parts.extraCa !== undefined && { extraCa: parts.extraCa }),
  });
  return (domain, selectors, signal, accountId) =>
    runSenderChecks(
      { dns, tlsProbe, policyFetcher, ...(gate && { gate }) },
      settings,
      domain,
      selectors,
      signal,
      accountId,
    );
}

/** The API's service: charged, cached per domain, bounded per account. */
export function createDomainChecks(
  config: Config,
  usage: Pick<UsageStore, 'chargeVerifications' | 'refundVerifications'>,
  gate: ConnectionGate,
  now?: () => Date,
): DomainCheckService {
  const run = createDomainCheckRun(config, {}, gate);
  return new DomainCheckService({
    run: (domain, selectors, accountId) => run(domain, selectors, undefined, accountId),
    usage,
    cacheTtlSeconds: config.MAILVET_DOMAIN_CHECK_TTL,
    perAccount: config.MAILVET_DOMAIN_CHECKS_PER_ACCOUNT,
    ...(now && { now }),
  });
}
