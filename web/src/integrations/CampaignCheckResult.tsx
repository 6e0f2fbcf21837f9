/**
 * What a pre-campaign check found: the campaign's recipients by category, what it verified, and the
 * segment the campaign now goes to when some were left out; or, when none were, the exclusions to
 * make as a second step.
 */
import { useEffect, useId, useRef } from 'react';
import type { CampaignCheck, CampaignExclusion } from '../api/types';
import { FormAlert } from '../components/FormAlert';
import { formatCount } from '../lib/format';

interface CampaignCheckResultProps {
  check: CampaignCheck;
  busy: boolean;
  /** Why the last exclusion asked for failed; null when it did not. */
  problem: string | null;
  onExclude: (exclude: CampaignExclusion) => void;
}

const CATEGORIES: ReadonlyArray<[keyof CampaignCheck['by_category'], string]> = [
  ['valid', 'Valid'],
  ['risky', 'Risky'],
  ['invalid', 'Invalid'],
  ['unverified', 'Not verified'],
];

export function CampaignCheckResult({ check, busy, problem, onExclude }: CampaignCheckResultProps) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A new answer takes the focus, so it is read at once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer is the trigger
  useEffect(() => headingRef.current?.focus(), [check]);
  const { by_category: counts, excluded } = check;

  return (
    <section aria-labelledby={headingId} className="card check-result">
      <h5 id={headingId} ref={headingRef} tabIndex={-1}>
        Campaign “{check.title}”
      </h5>
      <p>
        {formatCount(check.recipients)} recipients
        {check.verified > 0 && `; ${formatCount(check.verified)} of them verified by this check`}.
      </p>
      <table className="check-counts">
        <caption>Recipients by category</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col" className="number">
              Recipients
            </th>
          </tr>
        </thead>
        <tbody>
          {CATEGORIES.map(([key, label]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              <td className="number">{formatCount(counts[key])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {check.message !== null && <p className="alert alert-warn">{check.message}</p>}
      {excluded !== null ? (
        <p role="status" className="alert alert-ok">
          The campaign now goes to the segment “{excluded.segment_name}”: {formatCount(excluded.members)}{' '}
          members, {formatCount(Math.max(0, check.recipients - excluded.members))} recipients left out.
        </p>
      ) : (
        <ExcludeActions counts={counts} busy={busy} onExclude={onExclude} />
      )}
      <FormAlert message={problem} />
    </section>
  );
}

function ExcludeActions({
  counts,
  busy,
  onExclude,
}: {
  counts: CampaignCheck['by_category'];
  busy: boolean;
  onExclude: (exclude: CampaignExclusion) => void;
}) {
  if (counts.invalid === 0 && counts.risky === 0)
    return <p className="muted">No recipient is invalid or risky: nothing to leave out.</p>;
  return (
    <div className="actions">
      {counts.invalid > 0 && (
        <button
          type="button"
          className="button primary"
          aria-disabled={busy}
          onClick={() => onExclude('invalid')}
        >
          Exclude invalid from this campaign
        </button>
      )}
      {counts.risky > 0 && (
        <button type="button" className="button" aria-disabled={busy} onClick={() => onExclude('risky')}>
          Exclude risky and invalid from this campaign
        </button>
      )}
      {busy && <span className="muted">Asking Mailchimp…</span>}
    </div>
  );
}
