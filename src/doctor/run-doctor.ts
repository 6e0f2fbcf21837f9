/**
 * Runs the host check: every independent check at once (port 25 and the resolver; then, once the
 * egress address is known, PTR, blocklists and SPF), each network step under its own timeout and
 * the whole run under one deadline, after which what has not finished is reported as such.
 */
import { checkDnsbl } from './checks/dnsbl.ts';
import { type EgressResult, learnEgress } from './checks/egress-address.ts';
import { checkHelo } from './checks/helo.ts';
import { checkPort25, type Port25Result } from './checks/port-25.ts';
import { checkResolver } from './checks/resolver.ts';
import { checkReverseDns } from './checks/reverse-dns.ts';
import { checkSpf } from './checks/spf.ts';
import { type CheckName, type DoctorReport, type Finding, finding, reportOf } from './finding.ts';
import type { DoctorDns, Port25Dialer } from './ports.ts';
import type { DoctorSettings } from './settings.ts';

/** What the host check runs on. */
export interface DoctorDeps {
  dns: DoctorDns;
  dialer: Port25Dialer;
  /** The wall clock of the report's date. */
  now?: () => Date;
}

/**
 * Runs every check within `settings.deadlineMs` and returns the report. Never throws for network
 * trouble. Aborting `signal` (a shutdown) ends it at once: what has not finished is reported so.
 */
export async function runDoctor(
  deps: DoctorDeps,
  settings: DoctorSettings,
  signal?: AbortSignal,
): Promise<DoctorReport> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  const deadline = new Promise<'late'>((resolve) => {
    const timer = setTimeout(() => controller.abort(), settings.deadlineMs);
    controller.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve('late');
      },
      { once: true },
    );
  });
  const bounded = async (check: CheckName, work: Promise<Finding>): Promise<Finding> => {
    const outcome = await Promise.race([work, deadline]);
    return outcome === 'late' ? unfinished(check, settings.deadlineMs, signal) : outcome;
  };
  try {
    const resolver = bounded('resolver', checkResolver(deps.dns, settings.controlNames));
    const port = checkPort25(deps.dns, deps.dialer, settings, controller.signal);
    const addressChecks = (ip: string | null) => [
      bounded('reverse_dns', checkReverseDns(deps.dns, settings, ip)),
      bounded('dnsbl', checkDnsbl(deps.dns, settings.dnsblZones, ip)),
      bounded('spf', checkSpf(deps.dns, settings, ip)),
    ];
    // A stated egress address needs no dial: its checks start at once, beside port 25.
    const early = settings.egressIp === undefined ? null : learnEgress([], settings);
    const earlyChecks = early?.ip ? addressChecks(early.ip) : null;
    const dialled = await Promise.race([port, deadline]);
    const dials = dialled === 'late' ? [] : dialled.dials;
    const portFinding =
      dialled === 'late'
        ? unfinished('port_25', settings.deadlineMs, signal)
        : (dialled as Port25Result).finding;
    const egress: EgressResult = early ?? learnEgress(dials, settings);
    const later = earlyChecks ?? addressChecks(egress.ip);
    const findings = await Promise.all([
      Promise.resolve(portFinding),
      Promise.resolve(egress.finding),
      bounded('helo', checkHelo(deps.dns, settings, dials)),
      ...later,
      resolver,
    ]);
    return reportOf(findings, (deps.now ?? (() => new Date()))(), egress.ip);
  } finally {
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}

function unfinished(check: CheckName, deadlineMs: number, signal: AbortSignal | undefined): Finding {
  if (signal?.aborted) {
    return finding(check, 'skipped', 'Stopped before it finished: the process is shutting down.', {
      stopped: true,
    });
  }
  return finding(
    check,
    'warn',
    `Did not finish within ${Math.round(deadlineMs / 1000)} s: a lookup or a connection hung.`,
    { timedOut: true },
    'See the resolver check; run the doctor again, with MAILVET_DNS_TIMEOUT_MS lower if the resolver is slow.',
  );
}
