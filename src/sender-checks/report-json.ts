/**
 * The report as the API, `mailvet domain-check --json` and the dashboard get it (snake_case, as
 * every API body). It holds nothing about the caller's account.
 */
import type { DomainReport } from './run-checks.ts';

/** The JSON body of a report. */
export function domainReportJson(report: DomainReport, cached = false) {
  return {
    domain: report.domain,
    grade: report.grade,
    score: report.score,
    checked_at: report.checkedAt,
    duration_ms: report.durationMs,
    cached,
    dkim_selectors: report.dkimSelectors,
    dkim_selectors_given: report.dkimSelectorsGiven,
    complete: report.complete,
    counts: report.counts,
    findings: report.findings,
  };
}

/** Whether any check failed (the CLI's exit code 1). */
export function hasFailedCheck(report: DomainReport): boolean {
  return report.counts.fail > 0;
}
