/**
 * Runs the sender-domain checks of one domain: the independent ones at once (SPF, DMARC, DKIM, MX,
 * TLS-RPT), then those that need their answers (MTA-STS needs the MX hosts, BIMI the DMARC policy,
 * the blocklists the MX and SPF addresses), each network step under its own timeout and the whole
 * run under one deadline, after which a check still running is reported as unfinished. Beside them,
 * control queries say whether the resolver can be believed at all: when not, the report has no
 * grade and one finding, and nothing the resolver said about the domain (resolver-trust.ts).
 */
import { checkBimi } from './checks/bimi.ts';
import { checkBlocklists } from './checks/blocklists.ts';
import { COMMON_SELECTORS, checkDkim } from './checks/dkim.ts';
import { checkDmarc } from './checks/dmarc.ts';
import { checkMtaSts } from './checks/mta-sts.ts';
import { checkMx } from './checks/mx.ts';
import { checkSpf } from './checks/spf.ts';
import { checkTlsRpt } from './checks/tls-rpt.ts';
import {
  countFindings,
  type SenderCheck,
  type SenderFinding,
  senderFinding,
  sortFindings,
} from './finding.ts';
import { type Grade, gradeOf } from './grade.ts';
import type { ConnectionGate, MtaStsPolicyFetcher, MxTlsProbe, SenderDns } from './ports.ts';
import { type ResolverTrust, resolverTrust, untrustworthyResolver } from './resolver-trust.ts';
import type { SenderCheckSettings } from './settings.ts';

/** What the checks run on. */
export interface SenderCheckDeps {
  dns: SenderDns;
  tlsProbe: MxTlsProbe;
  /** The SMTP connection budget the MX dials draw on; none (the CLI's own process) without it. */
  gate?: ConnectionGate;
  policyFetcher: MtaStsPolicyFetcher;
  /** The wall clock of the report's date. */
  now?: () => Date;
}

/** The report of one domain. */
export interface DomainReport {
  /** The domain checked, in ASCII (A-label) form. */
  domain: string;
  /** Null when the resolver cannot be trusted (`resolver_untrustworthy`): no grade rests on its answers. */
  grade: Grade | null;
  /** The points behind the grade (0–100); null with the grade. */
  score: number | null;
  /** When the checks ran (ISO-8601 UTC). */
  checkedAt: string;
  durationMs: number;
  /** The DKIM selectors looked at, and whether the caller named them. */
  dkimSelectors: string[];
  dkimSelectorsGiven: boolean;
  /**
   * False when a lookup failed or a check did not finish (the grade then rests on part of the
   * facts), or when the resolver cannot be trusted (then there is no grade).
   */
  complete: boolean;
  counts: Record<SenderFinding['status'], number>;
  findings: SenderFinding[];
}

/** Runs every check of `domain` (ASCII, validated) within the deadline. Never throws for network trouble. */
export async function runSenderChecks(
  deps: SenderCheckDeps,
  settings: SenderCheckSettings,
  domain: string,
  selectors: readonly string[] = [],
  signal?: AbortSignal,
  accountId?: string,
): Promise<DomainReport> {
  const started = performance.now();
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  const timer = setTimeout(stop, settings.deadlineMs);
  const late = new Promise<'late'>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve('late'), { once: true }),
  );
  const bounded = async <T>(work: Promise<T>): Promise<T | 'late'> => Promise.race([work, late]);
  const given = selectors.length > 0;
  const dkimSelectors = given
    ? [...new Set(selectors.map((each) => each.toLowerCase()))]
    : [...COMMON_SELECTORS];
  const report = (
    findings: SenderFinding[],
    grade: Grade | null,
    score: number | null,
    complete: boolean,
  ): DomainReport => ({
    domain,
    grade,
    score,
    checkedAt: (deps.now ?? (() => new Date()))().toISOString(),
    durationMs: Math.round(performance.now() - started),
    dkimSelectors,
    dkimSelectorsGiven: given,
    complete,
    counts: countFindings(findings),
    findings,
  });
  try {
    const { dns } = deps;
    let trust: ResolverTrust | undefined;
    const trusting = resolverTrust(dns, settings.controlNames).then((verdict) => {
      trust = verdict;
      // Nothing the checks would still find could be believed: they stop at once.
      if (!verdict.trusted) stop();
    });
    const [spf, dmarc, dkim, mx, tlsRpt] = await Promise.all([
      bounded(checkSpf(dns, domain)),
      bounded(checkDmarc(dns, domain)),
      bounded(checkDkim(dns, domain, dkimSelectors, given)),
      bounded(
        checkMx(
          dns,
          { probe: deps.tlsProbe, ...(deps.gate && { gate: deps.gate }), ...(accountId && { accountId }) },
          settings,
          domain,
          controller.signal,
        ),
      ),
      bounded(checkTlsRpt(dns, domain)),
    ]);
    // The verdict comes with the first control that answers, sooner than the MX hosts' STARTTLS.
    await bounded(trusting);
    if (trust?.trusted === false) {
      return report([untrustworthyResolver(domain, trust.controls)], null, null, false);
    }
    const mxHosts = mx === 'late' ? [] : mx.hosts;
    const [mtaSts, bimi, blocklists] = await Promise.all([
      bounded(
        checkMtaSts(
          dns,
          deps.policyFetcher,
          domain,
          mxHosts.map((host) => host.host),
          settings.fetchTimeoutMs,
          controller.signal,
        ),
      ),
      bounded(checkBimi(dns, domain, dmarc === 'late' ? null : dmarc.policy)),
      bounded(
        checkBlocklists(dns, settings, domain, {
          mx: mxHosts.flatMap((host) => host.addresses),
          spf: spf === 'late' ? [] : spf.analysis.sendingAddresses,
        }),
      ),
    ]);
    const stopped = signal?.aborted === true;
    const or = (check: SenderCheck, found: SenderFinding[] | 'late') =>
      found === 'late' ? [unfinished(check, settings.deadlineMs, stopped)] : found;
    const findings = sortFindings([
      ...or('spf', spf === 'late' ? 'late' : spf.findings),
      ...or('dmarc', dmarc === 'late' ? 'late' : dmarc.findings),
      ...or('dkim', dkim),
      ...or('mx', mx === 'late' ? 'late' : mx.findings),
      ...or('mta_sts', mtaSts),
      ...or('tls_rpt', tlsRpt),
      ...or('bimi', bimi),
      ...or('blocklists', blocklists),
    ]);
    const { grade, score } = gradeOf(findings);
    return report(findings, grade, score, !findings.some((item) => isIncomplete(item.code)));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}

/** Findings that say a part could not be checked (our lookup, or the domain's servers, failed). */
export function isIncomplete(code: string): boolean {
  return code === 'check_unfinished' || code === 'mx_not_dialled' || code.endsWith('_lookup_failed');
}

function unfinished(check: SenderCheck, deadlineMs: number, stopped: boolean): SenderFinding {
  return senderFinding(
    check,
    'check_unfinished',
    'warn',
    stopped
      ? 'Stopped before it finished: the process is shutting down.'
      : `Did not finish within ${Math.round(deadlineMs / 1000)} s: a lookup or a connection hung.`,
    "Run the check again; if it keeps happening, the domain's DNS servers or mail hosts answer very slowly.",
  );
}
