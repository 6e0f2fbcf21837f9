/**
 * `mailvet domain-check DOMAIN [--dkim-selector S ...] [--json]`: the sender-domain report, the
 * grade first, then one line per finding (✔ pass, ! warn, ✖ fail, i info) with its fix indented
 * under it. Exit code 0 when no check failed, 1 when one did, 2 when the resolver cannot be trusted
 * (no grade: the fix is this host's, not the domain's) or for a bad domain or configuration, as
 * every command. Needs no database and charges nothing.
 */
import { loadConfig } from '../config.ts';
import { createDomainCheckRun } from '../container/sender-checks.ts';
import { isSelector, MAX_DKIM_SELECTORS, senderDomain } from '../sender-checks/domain-name.ts';
import type { SenderStatus } from '../sender-checks/finding.ts';
import { domainReportJson, hasFailedCheck } from '../sender-checks/report-json.ts';
import type { DomainReport } from '../sender-checks/run-checks.ts';
import { UsageError } from './usage-error.ts';

const MARKS: Record<SenderStatus, string> = { pass: '✔', warn: '!', fail: '✖', info: 'i' };

/** Checks the domain and prints the report. */
export async function runDomainCheck(
  domain: string,
  options: { json?: boolean; dkimSelector?: string[] },
): Promise<void> {
  const parsed = senderDomain(domain);
  if (!parsed.ok) throw new UsageError(`${parsed.problem}: "${domain}"`);
  const selectors = options.dkimSelector ?? [];
  const bad = selectors.find((selector) => !isSelector(selector));
  if (bad !== undefined)
    throw new UsageError(`"${bad}" is not a DKIM selector (letters, digits, hyphens, dots)`);
  if (selectors.length > MAX_DKIM_SELECTORS)
    throw new UsageError(`at most ${MAX_DKIM_SELECTORS} DKIM selectors`);
  const config = loadConfig();
  const report = await createDomainCheckRun(config)(parsed.domain, selectors);
  process.stdout.write(
    options.json ? `${JSON.stringify(domainReportJson(report), null, 2)}\n` : formatDomainReport(report),
  );
  process.exitCode = report.grade === null ? 2 : hasFailedCheck(report) ? 1 : 0;
}

/** The report for people: the grade, a line per finding, fixes indented, counts at the end. */
export function formatDomainReport(report: DomainReport): string {
  const incomplete = report.complete ? '' : ' — incomplete: some lookups failed, check again';
  const headline =
    report.grade === null
      ? `${report.domain}: no grade — this host's DNS resolver cannot be trusted`
      : `${report.domain}: grade ${report.grade} (${report.score}/100)${incomplete}`;
  const lines = [headline, ''];
  for (const item of report.findings) {
    lines.push(`${MARKS[item.status]} ${item.check.padEnd(11)} ${item.summary}`);
    if (item.fix !== null && item.status !== 'pass') lines.push(`    fix: ${item.fix}`);
  }
  const { pass, warn, fail, info } = report.counts;
  lines.push('', `${pass} passed, ${warn} warned, ${fail} failed, ${info} for information`);
  return `${lines.join('\n')}\n`;
}
