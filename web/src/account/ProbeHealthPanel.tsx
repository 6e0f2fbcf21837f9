/**
 * "Probe host health" on the Account page, for operators only: the last `mailvet doctor` report
 * (port 25, egress address, HELO, reverse DNS, blocklists, SPF, resolver), each finding with its
 * fix. The Account page renders it only when the session says its user is an operator; should the
 * API still answer 404 (MAILVET_OPERATORS changed since), the panel is not shown at all.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Outcome, settle } from '../api/problem';
import type { SuccessBody } from '../api/types';
import { formatInstant } from '../lib/format';

type DoctorReport = SuccessBody<'/api/v1/doctor', 'get'>;
type Finding = DoctorReport['findings'][number];

const MARKS: Record<Finding['status'], string> = { pass: '✔', warn: '!', fail: '✖', skipped: '–' };
const STATUS_WORDS: Record<Finding['status'], string> = {
  pass: 'passed',
  warn: 'warning',
  fail: 'failed',
  skipped: 'skipped',
};
const CHECK_NAMES: Record<Finding['check'], string> = {
  port_25: 'Port 25',
  egress_address: 'Egress address',
  helo: 'HELO name',
  reverse_dns: 'Reverse DNS',
  dnsbl: 'Blocklists',
  spf: 'SPF',
  resolver: 'DNS resolver',
};

export function ProbeHealthPanel() {
  const [report, setReport] = useState<Outcome<DoctorReport> | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async (refresh: boolean) => {
    setBusy(true);
    const outcome = await settle(
      api.GET('/api/v1/doctor', { params: { query: refresh ? { refresh: '1' } : {} } }),
    );
    setBusy(false);
    return outcome;
  }, []);

  useEffect(() => {
    let current = true;
    void load(false).then((outcome) => {
      if (current) setReport(outcome);
    });
    return () => {
      current = false;
    };
  }, [load]);

  // Not an operator (or not there yet): nothing to show.
  if (report === null || (!report.ok && report.status === 404)) return null;
  return (
    <section aria-labelledby="probe-health-heading" className="card">
      <h2 id="probe-health-heading">Probe host health</h2>
      {!report.ok && (
        <div role="alert" className="alert alert-error">
          Could not check the probe host: {report.problem.message}
        </div>
      )}
      {report.ok && <ReportView report={report.data} />}
      <div className="actions">
        <button
          type="button"
          className="button"
          aria-disabled={busy}
          onClick={() => {
            if (!busy) void load(true).then(setReport);
          }}
        >
          {busy ? 'Checking…' : 'Check again'}
        </button>
      </div>
    </section>
  );
}

function ReportView({ report }: { report: DoctorReport }) {
  const { pass, warn, fail, skipped } = report.counts;
  return (
    <>
      <p className="muted">
        Checked {formatInstant(report.checked_at)}
        {report.egress_ip !== null && <> from {report.egress_ip}</>}: {pass} passed, {warn} warned, {fail}{' '}
        failed, {skipped} skipped.
      </p>
      <ul className="stack" aria-label="Findings">
        {report.findings.map((finding) => (
          <li key={finding.check}>
            <strong>
              <span aria-hidden="true">{MARKS[finding.status]} </span>
              {CHECK_NAMES[finding.check]}
            </strong>{' '}
            <span className="muted">({STATUS_WORDS[finding.status]})</span>: {finding.summary}
            {finding.fix !== undefined && finding.status !== 'pass' && (
              <p className="muted">Fix: {finding.fix}</p>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
