/**
 * Wires the host check (`mailvet doctor`, the dashboard's panel, the start-up line) from
 * configuration: its own resolver (no cache: the doctor wants today's answers) and dialer.
 */
import { hostname } from 'node:os';
import { SmtpPort25Dialer } from '../adapters/port25/smtp-dialer.ts';
import type { Config } from '../config.ts';
import { type DoctorAccess, DoctorService } from '../doctor/doctor-service.ts';
import { type DoctorReport, hasFailure, summaryLine } from '../doctor/finding.ts';
import { runDoctor } from '../doctor/run-doctor.ts';
import type { DoctorSettings } from '../doctor/settings.ts';
import { configuredResolver } from './dns.ts';
import type { Logger } from './logger.ts';

/** The whole run's bound, ms: the checks run at once, so this is about one slow step. */
const DOCTOR_DEADLINE_MS = 15_000;
/** One dial's bounds, ms: a blocked port 25 shows as a connect timeout, which need not take long. */
const DIAL_TIMEOUT_MS = 5_000;

/** The doctor's settings from configuration. */
export function doctorSettings(config: Config): DoctorSettings {
  const helo = config.MAILVET_SMTP_HELO ?? hostname();
  return {
    mxHosts: config.MAILVET_DOCTOR_MX_HOSTS,
    defaultPort: config.MAILVET_SMTP_PORT,
    helo,
    heloConfigured: config.MAILVET_SMTP_HELO !== undefined,
    from: config.MAILVET_SMTP_FROM ?? `verify@${helo}`,
    dnsblZones: config.MAILVET_DNSBL_ZONES,
    controlNames: config.MAILVET_DNS_CONTROL_NAMES,
    ...(config.MAILVET_EGRESS_IP !== undefined && { egressIp: config.MAILVET_EGRESS_IP }),
    proxied: config.MAILVET_SMTP_PROXY.length > 0,
    connectTimeoutMs: Math.min(config.MAILVET_SMTP_CONNECT_TIMEOUT_MS, DIAL_TIMEOUT_MS),
    commandTimeoutMs: Math.min(config.MAILVET_SMTP_TIMEOUT_MS, DIAL_TIMEOUT_MS),
    deadlineMs: DOCTOR_DEADLINE_MS,
  };
}

/** A function that runs the host check once with this configuration; aborting `signal` ends it. */
export function createDoctorRun(config: Config): (signal?: AbortSignal) => Promise<DoctorReport> {
  const dns = configuredResolver(config);
  const dialer = new SmtpPort25Dialer();
  const settings = doctorSettings(config);
  return async (signal) => {
    // Lookups in flight would hold the process for their own timeouts after a shutdown.
    const cancel = () => dns.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await runDoctor({ dns, dialer }, settings, signal);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };
}

/** The shared last report (the dashboard panel and the start-up line). */
export function createDoctorService(config: Config): DoctorService {
  return new DoctorService(createDoctorRun(config));
}

/**
 * Runs the host check in the background and logs its one line (warn when a check failed, else
 * info). Never throws; the report is kept for the operators' panel.
 */
export function logDoctorSummary(access: DoctorAccess, log: Pick<Logger, 'info' | 'warn'>): void {
  access.service.report().then(
    (report) => {
      const failing = report.findings.filter((item) => item.status === 'fail').map((item) => item.check);
      const fields = { doctor: { ...report.counts, failing, egress_ip: report.egressIp } };
      if (hasFailure(report)) log.warn(fields, summaryLine(report));
      else log.info(fields, summaryLine(report));
    },
    (error: unknown) => log.warn({ err: error }, 'doctor: the host check could not run'),
  );
}
