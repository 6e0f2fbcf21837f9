/**
 * Why a verdict is what it is, in words: the mail server asked, its provider, the reply that
 * decided, the catch-all test, and for a catch-all domain each signal behind the confidence with
 * the way it moved it.
 */
import type { VerificationResult } from '../api/types';
import { mailboxNotChecked } from './checks';

type Evidence = VerificationResult['evidence'];
type Reply = NonNullable<Evidence['smtp_reply']>;

const PROVIDER_KINDS: Record<string, string> = {
  mailbox_host: 'keeps the mailboxes',
  security_gateway: 'filters mail in front of the mailboxes',
};

const CATCH_ALL_OUTCOMES: Record<string, string> = {
  accepted: 'an address nobody has was accepted: the domain takes every address',
  rejected: 'an address nobody has was refused: the server tells mailboxes apart',
  inconclusive: 'the server gave no clear answer',
};

function replyText(reply: Reply): string {
  return [reply.code === 0 ? 'malformed reply' : String(reply.code), reply.enhanced_code, reply.message]
    .filter((part) => part !== null && part !== '')
    .join(' ');
}

function catchAllText(probe: Evidence['catch_all_probe']): string | null {
  if (probe.outcome === null) return probe.ran ? 'asked, no answer' : null;
  const meaning = CATCH_ALL_OUTCOMES[probe.outcome] ?? probe.outcome;
  return probe.ran ? `asked now: ${meaning}` : `known from an earlier test: ${meaning}`;
}

/** The evidence of one result; nothing when no stage learnt anything. */
export function EvidenceView({ result }: { result: VerificationResult }) {
  const { evidence } = result;
  const confidence = result.checks.catch_all_confidence;
  const catchAll = catchAllText(evidence.catch_all_probe);
  const rows: Array<[string, string]> = [];
  if (evidence.mx_host !== null)
    rows.push([
      'Mail server',
      evidence.mx_address === null ? evidence.mx_host : `${evidence.mx_host} (${evidence.mx_address})`,
    ]);
  if (evidence.provider !== null)
    rows.push([
      'Provider',
      `${evidence.provider.name}, which ${PROVIDER_KINDS[evidence.provider.kind] ?? evidence.provider.kind}`,
    ]);
  // A reply that left the mailbox unchecked (greylisting, a block) decided nothing about it.
  if (evidence.smtp_reply !== null)
    rows.push([
      mailboxNotChecked(result) ? 'Mail server replied' : 'Reply that decided',
      replyText(evidence.smtp_reply),
    ]);
  if (catchAll !== null) rows.push(['Catch-all test', catchAll]);
  if (evidence.catch_all_probe.reply !== null)
    rows.push(['Catch-all test reply', replyText(evidence.catch_all_probe.reply)]);
  if (confidence !== null) rows.push(['Catch-all confidence', `${confidence} / 100`]);
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="evidence-heading">
      <h3 id="evidence-heading">Evidence</h3>
      <table className="checks">
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {evidence.catch_all_signals.length > 0 && (
        <table className="checks">
          <caption>What moved the catch-all confidence</caption>
          <thead>
            <tr>
              <th scope="col">Signal</th>
              <th scope="col">Effect</th>
            </tr>
          </thead>
          <tbody>
            {evidence.catch_all_signals.map((signal) => (
              <tr key={signal.signal}>
                <th scope="row">
                  {signal.detail} <code>{signal.signal}</code>
                </th>
                <td>
                  {signal.weight > 0 ? 'raised' : 'lowered'} ({signal.weight > 0 ? '+' : ''}
                  {signal.weight.toFixed(2)})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
