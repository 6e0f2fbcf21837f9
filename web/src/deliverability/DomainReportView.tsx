/**
 * A sender-domain report: the grade, the counts, and each finding with its status in words and its
 * fix written out, grouped by check in the order the API gives them. A report without a grade (the
 * service's resolver cannot be trusted) says so instead of a grade, above its one finding.
 */
import type { SuccessBody } from '../api/types';
import { formatInstant } from '../lib/format';

export type DomainReport = SuccessBody<'/api/v1/domains/check', 'post'>;
type Finding = DomainReport['findings'][number];

const MARKS: Record<Finding['status'], string> = { pass: '✔', warn: '!', fail: '✖', info: 'i' };
const STATUS_WORDS: Record<Finding['status'], string> = {
  pass: 'passed',
  warn: 'warning',
  fail: 'failed',
  info: 'information',
};
const CHECK_NAMES: Record<Finding['check'], string> = {
  resolver: 'DNS resolver',
  spf: 'SPF',
  dmarc: 'DMARC',
  dkim: 'DKIM',
  mx: 'Mail hosts (MX)',
  mta_sts: 'MTA-STS',
  tls_rpt: 'TLS reporting',
  bimi: 'BIMI',
  blocklists: 'Blocklists',
};
const GRADE_WORDS: Record<NonNullable<DomainReport['grade']>, string> = {
  A: 'everything in place',
  B: 'good, with things to fix',
  C: 'mail at risk of the spam folder',
  D: 'mail likely refused or spoofable',
  F: 'mail will not be delivered well',
};

export function DomainReportView({ report }: { report: DomainReport }) {
  const { pass, warn, fail, info } = report.counts;
  return (
    <section aria-labelledby="domain-report-heading" className="card">
      <h2 id="domain-report-heading">
        {report.grade === null ? 'No grade' : `Grade ${report.grade}`} for {report.domain}
      </h2>
      <p>
        {report.grade === null ? (
          <strong>
            The DNS resolver of this service cannot be trusted, so nothing it said about the domain is graded.{' '}
          </strong>
        ) : (
          <>
            <strong>{report.score}/100</strong>: {GRADE_WORDS[report.grade]}.{' '}
            {!report.complete && <strong>Incomplete: some lookups failed, check again in a while. </strong>}
          </>
        )}
        <span className="muted">
          {pass} passed, {warn} warnings, {fail} failed, {info} for information. Checked{' '}
          {formatInstant(report.checked_at)}
          {report.cached ? ' (a report from the last few minutes)' : ''}; DKIM selectors looked at:{' '}
          {report.dkim_selectors.join(', ')}.
        </span>
      </p>
      <ul className="stack" aria-label="Findings">
        {report.findings.map((finding, index) => (
          // Findings have no id; their order is fixed by the API.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <li key={index}>
            <strong>
              <span aria-hidden="true">{MARKS[finding.status]} </span>
              {CHECK_NAMES[finding.check]}
            </strong>{' '}
            <span className="muted">({STATUS_WORDS[finding.status]})</span>: {finding.summary}
            {finding.fix !== null && finding.status !== 'pass' && <p className="hint">Fix: {finding.fix}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
