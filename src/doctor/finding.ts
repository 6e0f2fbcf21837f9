/**
 * What the host check reports: one finding per check, in plain words with the fix, and the report
 * that keeps them side by side. The exit code and the log line are functions of the report.
 */

/** The checks, in the order they are shown. */
export const CHECKS = [
  'port_25',
  'egress_address',
  'helo',
  'reverse_dns',
  'dnsbl',
  'spf',
  'resolver',
] as const;
export type CheckName = (typeof CHECKS)[number];

/** pass: fit; warn: works but hurts deliverability or could not be told; fail: the probe will not work well. */
export type FindingStatus = 'pass' | 'warn' | 'fail' | 'skipped';

/** One check's finding. */
export interface Finding {
  check: CheckName;
  status: FindingStatus;
  /** What was found, in plain words. */
  summary: string;
  /** What to do about it, when anything. */
  fix?: string;
  /** The facts behind it (hosts tried, records seen), for --json and the dashboard. */
  details: Record<string, unknown>;
}

/** A whole run of the host check. */
export interface DoctorReport {
  /** When it ran (ISO-8601 UTC). */
  checkedAt: string;
  /** The egress address the address-based checks used, when known. */
  egressIp: string | null;
  findings: Finding[];
  counts: Record<FindingStatus, number>;
}

/** Builds a finding; `fix` is left out when there is none. */
export function finding(
  check: CheckName,
  status: FindingStatus,
  summary: string,
  details: Record<string, unknown> = {},
  fix?: string,
): Finding {
  return { check, status, summary, ...(fix !== undefined && { fix }), details };
}

/** The report of these findings, in the order of CHECKS. */
export function reportOf(findings: Finding[], checkedAt: Date, egressIp: string | null): DoctorReport {
  const sorted = [...findings].sort((a, b) => CHECKS.indexOf(a.check) - CHECKS.indexOf(b.check));
  const counts: Record<FindingStatus, number> = { pass: 0, warn: 0, fail: 0, skipped: 0 };
  for (const item of sorted) counts[item.status]++;
  return { checkedAt: checkedAt.toISOString(), egressIp, findings: sorted, counts };
}

/** Whether any check failed (the CLI's exit code 1). */
export function hasFailure(report: DoctorReport): boolean {
  return report.counts.fail > 0;
}

/** One line for the log: counts, and the names of the failing and warning checks. */
export function summaryLine(report: DoctorReport): string {
  const { pass, warn, fail, skipped } = report.counts;
  const named = (status: FindingStatus) =>
    report.findings.filter((item) => item.status === status).map((item) => item.check);
  const parts = [`doctor: ${pass} passed, ${warn} warned, ${fail} failed, ${skipped} skipped`];
  if (fail > 0) parts.push(`failed: ${named('fail').join(', ')}`);
  if (warn > 0) parts.push(`warned: ${named('warn').join(', ')}`);
  return `${parts.join('; ')} (run \`mailvet doctor\` for the fixes)`;
}

/** The report as the API and `mailvet doctor --json` give it (snake_case, as every API body). */
export function reportJson(report: DoctorReport) {
  return {
    checked_at: report.checkedAt,
    egress_ip: report.egressIp,
    counts: report.counts,
    findings: report.findings,
  };
}
