/**
 * The verification of one address: status, score, reason and every check; suggestions verify on
 * click. A result whose mailbox was never checked says "Not confirmed" beside its status, in place
 * of the status's usual meaning, which would promise more than was learnt.
 */
import type { VerificationResult } from '../api/types';
import { Gauge } from '../components/Gauge';
import { StatusBadge } from '../components/StatusBadge';
import { statusInfo } from '../lib/statuses';
import { checkLines, mailboxNotChecked, REASONS } from './checks';
import { EvidenceView } from './EvidenceView';

interface ResultCardProps {
  result: VerificationResult;
  onVerifySuggestion: (address: string) => void;
}

export function ResultCard({ result, onVerifySuggestion }: ResultCardProps) {
  const info = statusInfo(result.status);
  const unconfirmed = mailboxNotChecked(result);
  return (
    <section className="card result" aria-labelledby="result-heading">
      <h2 id="result-heading">
        Result for <span className="address">{result.email}</span>
      </h2>
      <dl className="summary">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={result.status} />{' '}
            {unconfirmed ? (
              <>
                <span className="badge badge-unconfirmed">Not confirmed</span>{' '}
                <span className="muted">The mailbox was not checked, so whether it exists is not known.</span>
              </>
            ) : (
              <span className="muted">{info.meaning}</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Score</dt>
          <dd className="score">
            <span>{result.score} / 100</span>
            <Gauge
              kind="meter"
              label="Score"
              value={result.score}
              max={100}
              valueText={`${result.score} of 100`}
            />
          </dd>
        </div>
        <div>
          <dt>Reason</dt>
          <dd>
            {REASONS[result.reason] ?? result.reason} <code>{result.reason}</code>
          </dd>
        </div>
      </dl>
      {result.checks.suggestions.length > 0 && (
        <div className="suggestions">
          <p>Did you mean:</p>
          <ul>
            {result.checks.suggestions.map((suggestion) => (
              <li key={suggestion}>
                <button type="button" className="button" onClick={() => onVerifySuggestion(suggestion)}>
                  {suggestion}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3>Checks</h3>
      <table className="checks">
        <tbody>
          {checkLines(result).map((line) => (
            <tr key={line.key}>
              <th scope="row">{line.label}</th>
              <td>{line.value}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">Time taken</th>
            <td>{result.duration_ms} ms</td>
          </tr>
        </tbody>
      </table>
      <EvidenceView result={result} />
    </section>
  );
}
