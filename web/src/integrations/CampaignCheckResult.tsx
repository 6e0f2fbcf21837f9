/**
 * What a pre-campaign check found: the campaign's recipients by category, what it verified, and the
 * segment the campaign now goes to (HubSpot: the list its marketing email now leaves out) when some
 * were left out; or, when none were, the exclusions to
 * make as a second step, each asked to be confirmed first since it changes who gets the campaign.
 */
import { useEffect, useId, useRef } from 'react';
import type { CampaignCheck, CampaignExclusion, LastCampaignCheck } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { FormAlert } from '../components/FormAlert';
import { countWords } from '../lib/count-words';
import { formatCount, formatInstant } from '../lib/format';
import { capitalized, type PlatformWords, usePlatform } from './platform';

interface CampaignCheckResultProps {
  last: LastCampaignCheck;
  /** Kept from before (a reload): shown without taking the focus. */
  restored: boolean;
  busy: boolean;
  /** Why the last exclusion asked for failed; null when it did not. */
  problem: string | null;
  onExclude: (exclude: CampaignExclusion) => Promise<void>;
}

const CATEGORIES: ReadonlyArray<[keyof CampaignCheck['by_category'], string]> = [
  ['valid', 'Valid'],
  ['risky', 'Risky'],
  ['invalid', 'Invalid'],
  ['unverified', 'Not verified'],
];

/** "7 recipients; 1 of them verified by this check." */
export function recipientsWords(check: Pick<CampaignCheck, 'recipients' | 'verified'>): string {
  const verified =
    check.verified === 0
      ? ''
      : check.verified === 1 && check.recipients === 1
        ? '; it was verified by this check'
        : `; ${formatCount(check.verified)} of them verified by this check`;
  return `${countWords(check.recipients, 'recipient', 'recipients')}${verified}.`;
}

/** "…: 1 member, 2 recipients left out." */
export function excludedWords(
  check: CampaignCheck,
  excluded: NonNullable<CampaignCheck['excluded']>,
  platform: PlatformWords,
): string {
  const left = Math.max(0, check.recipients - excluded.members);
  return `${platform.excludedInto(excluded.segment_name)}: ${countWords(excluded.members, platform.member, platform.members)}, ${countWords(left, 'recipient', 'recipients')} left out.`;
}

export function CampaignCheckResult({ last, restored, busy, problem, onExclude }: CampaignCheckResultProps) {
  const platform = usePlatform();
  const { check } = last;
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A new answer takes the focus, so it is read at once; the one kept from before (a reload) does not.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer is the trigger
  useEffect(() => {
    if (!restored) headingRef.current?.focus();
  }, [check]);
  const { by_category: counts, excluded } = check;

  return (
    <section aria-labelledby={headingId} className="card check-result">
      <h5 id={headingId} ref={headingRef} tabIndex={-1}>
        {capitalized(platform.campaign)} “{check.title}”
      </h5>
      <p className="muted small">Checked {formatInstant(last.checked_at)}.</p>
      <p>{recipientsWords(check)}</p>
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
          {excludedWords(check, excluded, platform)}
        </p>
      ) : (
        <ExcludeActions check={check} busy={busy} onExclude={onExclude} />
      )}
      <FormAlert message={problem} />
    </section>
  );
}

function ExcludeActions({
  check,
  busy,
  onExclude,
}: {
  check: CampaignCheck;
  busy: boolean;
  onExclude: (exclude: CampaignExclusion) => Promise<void>;
}) {
  const platform = usePlatform();
  const counts = check.by_category;
  if (counts.invalid === 0 && counts.risky === 0)
    return <p className="muted">No recipient is invalid or risky: nothing to leave out.</p>;
  const question = (who: string) => platform.excludeQuestion(who, check.title);
  return (
    <div className="actions">
      {counts.invalid > 0 && (
        <ConfirmButton
          label={`Exclude invalid from this ${platform.campaign}`}
          question={question(countWords(counts.invalid, 'invalid recipient', 'invalid recipients'))}
          confirmLabel="Yes, leave them out"
          disabled={busy}
          onConfirm={() => onExclude('invalid')}
        />
      )}
      {counts.risky > 0 && (
        <ConfirmButton
          label={`Exclude risky and invalid from this ${platform.campaign}`}
          question={question(
            countWords(
              counts.risky + counts.invalid,
              'risky or invalid recipient',
              'risky and invalid recipients',
            ),
          )}
          confirmLabel="Yes, leave them out"
          disabled={busy}
          onConfirm={() => onExclude('risky')}
        />
      )}
      {busy && <span className="muted">Asking {platform.label}…</span>}
    </div>
  );
}
