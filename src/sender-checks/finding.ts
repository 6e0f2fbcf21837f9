/**
 * What the sender-domain checks report: findings in plain words, each with its fix written out,
 * kept side by side in one report with the grade (grade.ts) made from them.
 */

/**
 * The checks, in the order they are shown. `resolver` is ours, not the domain's: its one finding
 * says our resolver cannot be believed, and then stands alone (resolver-trust.ts).
 */
export const SENDER_CHECKS = [
  'resolver',
  'spf',
  'dmarc',
  'dkim',
  'mx',
  'mta_sts',
  'tls_rpt',
  'bimi',
  'blocklists',
] as const;
export type SenderCheck = (typeof SENDER_CHECKS)[number];

/**
 * pass: as it should be; warn: works but costs deliverability or safety; fail: mail is refused,
 * spoofable or unprotected; info: optional, or a fact worth knowing.
 */
export type SenderStatus = 'pass' | 'warn' | 'fail' | 'info';

/** One finding. `code` is stable (docs/deliverability.md lists every one); `summary` and `fix` are for people. */
export interface SenderFinding {
  check: SenderCheck;
  code: string;
  status: SenderStatus;
  summary: string;
  /** What to do, written out; null when nothing needs doing. */
  fix: string | null;
  /** The facts behind it (records seen, hosts tried). */
  details: Record<string, unknown>;
}

/** Builds a finding. */
export function senderFinding(
  check: SenderCheck,
  code: string,
  status: SenderStatus,
  summary: string,
  fix: string | null = null,
  details: Record<string, unknown> = {},
): SenderFinding {
  return { check, code, status, summary, fix, details };
}

/** The findings in the order of SENDER_CHECKS (stable within a check). */
export function sortFindings(findings: readonly SenderFinding[]): SenderFinding[] {
  return findings
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        SENDER_CHECKS.indexOf(a.item.check) - SENDER_CHECKS.indexOf(b.item.check) || a.index - b.index,
    )
    .map(({ item }) => item);
}

/** Counts of findings by status. */
export function countFindings(findings: readonly SenderFinding[]): Record<SenderStatus, number> {
  const counts: Record<SenderStatus, number> = { pass: 0, warn: 0, fail: 0, info: 0 };
  for (const item of findings) counts[item.status]++;
  return counts;
}

/** Joins names for a sentence: "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
