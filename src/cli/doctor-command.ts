/**
 * `mailvet doctor [--json]`: is this host fit to run the SMTP probe? One line per finding (✔ pass,
 * ! warn, ✖ fail, - skipped) with its fix indented under it. Exit code 0 when no check failed, 1
 * when one did (2 for a configuration error, as every command). Needs no database.
 */
import { loadConfig } from '../config.ts';
import { createDoctorRun } from '../container/doctor.ts';
import { type DoctorReport, type FindingStatus, hasFailure, reportJson } from '../doctor/finding.ts';

const MARKS: Record<FindingStatus, string> = { pass: '✔', warn: '!', fail: '✖', skipped: '-' };

/** Runs every check and prints the report. */
export async function runDoctorCommand(options: { json?: boolean }): Promise<void> {
  const config = loadConfig();
  const report = await createDoctorRun(config)();
  process.stdout.write(
    options.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : formatReport(report),
  );
  process.exitCode = hasFailure(report) ? 1 : 0;
}

/** The report for people: a line per check, fixes indented, counts at the end. */
export function formatReport(report: DoctorReport): string {
  const lines: string[] = [];
  for (const item of report.findings) {
    lines.push(`${MARKS[item.status]} ${item.check.padEnd(14)} ${item.summary}`);
    if (item.fix !== undefined && item.status !== 'pass') lines.push(`    fix: ${item.fix}`);
  }
  const { pass, warn, fail, skipped } = report.counts;
  lines.push('', `${pass} passed, ${warn} warned, ${fail} failed, ${skipped} skipped`);
  return `${lines.join('\n')}\n`;
}
