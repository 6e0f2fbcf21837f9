/**
 * The grade of a sender domain: one pure, table-driven function of its findings (documented in
 * docs/deliverability.md). Points start at 100; each fail and warn costs its weight; some findings
 * cap the grade whatever the points, because one of them alone gets mail refused or spoofed.
 */
import type { SenderFinding, SenderStatus } from './finding.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

/** Points a finding of each status costs. */
export const STATUS_COST: Readonly<Record<SenderStatus, number>> = { fail: 20, warn: 6, info: 0, pass: 0 };

/** The lowest points of each grade, best first. */
export const GRADE_FLOORS: ReadonlyArray<readonly [Grade, number]> = [
  // An A has no failure and no warning at all.
  ['A', 95],
  ['B', 80],
  ['C', 65],
  ['D', 45],
  ['F', 0],
];

/** Findings that hold the grade at most this good, whatever the points. */
export const GRADE_CAPS: Readonly<Record<string, Grade>> = {
  // Anyone may send as the domain, or receivers will not believe any mail from it.
  spf_pass_all: 'D',
  spf_missing: 'C',
  spf_permerror: 'C',
  // Past RFC 7208's limits receivers give a permanent error: as if there were no SPF.
  spf_too_many_lookups: 'C',
  spf_void_lookups: 'C',
  spf_multiple_records: 'C',
  dmarc_missing: 'C',
  // Mail from a listed address or domain is refused or filtered outright.
  blocklist_listed: 'D',
  // Nothing receives the domain's bounces and replies.
  mx_missing: 'D',
  dkim_weak_key: 'C',
};

/** The grade and the points behind it. */
export function gradeOf(findings: readonly SenderFinding[]): { grade: Grade; score: number } {
  let score = 100;
  for (const item of findings) score -= STATUS_COST[item.status];
  score = Math.max(0, score);
  let grade = GRADE_FLOORS.find(([, floor]) => score >= floor)![0];
  for (const item of findings) {
    const cap = GRADE_CAPS[item.code];
    if (cap !== undefined && rank(cap) > rank(grade)) grade = cap;
  }
  return { grade, score };
}

function rank(grade: Grade): number {
  return GRADE_FLOORS.findIndex(([each]) => each === grade);
}
