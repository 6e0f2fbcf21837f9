/**
 * The pre-campaign check: pick one of the platform's draft campaigns, count its recipients by
 * category (those never verified verified now if asked), then, as a second step asked for and
 * confirmed, narrow the campaign to leave out the invalid (or risky and invalid) ones. The check
 * itself changes nothing on the platform but results written back. HubSpot's drafts are marketing
 * emails; a permission the connection lacks (HubSpot's `content` scope) is said with what to grant. The last check is kept by the
 * server, so it is shown again after a reload (or on another device).
 */
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { CampaignExclusion, DraftCampaign, LastCampaignCheck } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { countWords } from '../lib/count-words';
import { CampaignCheckResult } from './CampaignCheckResult';
import { type PlatformWords, usePlatform, withGrantHint } from './platform';
import { useDrafts } from './use-drafts';

/** The one field shown with its own message; the API's others join the form's. */
const FIELDS = ['campaign_id'] as const;

interface CheckRequest {
  campaignId: string;
  verifyUnverified: boolean;
  exclude: CampaignExclusion | null;
}

/** How a draft reads in the picker. */
export function draftWords(draft: DraftCampaign, platform: PlatformWords): string {
  const title = draft.title.trim() === '' ? `Untitled ${platform.campaign}` : draft.title;
  const audience = platform.audience.toLowerCase();
  if (draft.audience_id === null) return `${title} (no ${audience} chosen yet)`;
  return `${title}: to ${draft.audience_name ?? `its ${audience}`}, ${countWords(draft.recipient_count, 'recipient', 'recipients')}`;
}

export function CampaignCheckForm({
  integrationId,
  headingId,
}: {
  integrationId: string;
  headingId: string;
}) {
  const platform = usePlatform();
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [result, setResult] = useState<LastCampaignCheck | null>(null);
  /** Whether the check shown is the one kept from before (a reload) rather than one made here. */
  const [restored, setRestored] = useState(false);
  const checkedHere = useRef(false);
  const drafts = useDrafts(integrationId);
  const hintId = useId();

  // The check kept from before (a reload), unless one was made here meanwhile.
  useEffect(() => {
    let current = true;
    void settle(
      api.GET('/api/v1/integrations/{id}/campaign-checks/latest', {
        params: { path: { id: integrationId } },
      }),
    ).then((outcome) => {
      if (current && outcome.ok && outcome.data.last_check !== null) {
        if (checkedHere.current) return;
        setResult(outcome.data.last_check);
        setRestored(true);
      }
    });
    return () => {
      current = false;
    };
  }, [integrationId]);

  const check = async (request: CheckRequest) => {
    if (busy) return;
    checkedHere.current = true;
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/integrations/{id}/campaign-checks', {
        params: { path: { id: integrationId } },
        body: {
          campaign_id: request.campaignId,
          verify_unverified: request.verifyUnverified,
          exclude: request.exclude,
        },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(withGrantHint(outcome.problem, platform));
    setRestored(false);
    setResult({
      check: outcome.data,
      verify_unverified: request.verifyUnverified,
      checked_at: new Date().toISOString(),
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const campaignId = String(form.get('campaign_id') ?? '');
    setResult(null);
    if (campaignId === '')
      return setErrors({
        form: null,
        fields: { campaign_id: `Choose a draft ${platform.campaign} to check.` },
      });
    void check({ campaignId, verifyUnverified: form.get('verify_unverified') !== null, exclude: null });
  };

  const choices = drafts.drafts ?? [];
  const firstCheckable = choices.find((draft) => draft.audience_id !== null);

  return (
    <section aria-labelledby={headingId} className="campaign-check">
      <h4 id={headingId}>Pre-campaign check</h4>
      <p className="muted small">
        Before sending a draft {platform.campaign}: how many of its recipients are valid, risky or invalid,
        and leave out the ones that would bounce.
      </p>
      {drafts.problem !== null && (
        <div role="alert" className="alert alert-error">
          {drafts.problem.code === 'integration_scope_missing' ? (
            <p>{withGrantHint(drafts.problem, platform).message}</p>
          ) : (
            <p>
              The draft {platform.campaigns} could not be read: {drafts.problem.message}
            </p>
          )}
          <button type="button" className="button" onClick={drafts.reload}>
            Try again
          </button>
        </div>
      )}
      {drafts.drafts === null && drafts.problem === null && (
        <p className="muted">Loading the draft {platform.campaigns}…</p>
      )}
      {drafts.drafts !== null && choices.length === 0 && (
        <div className="actions">
          <p className="muted">
            No draft {platform.campaigns} in this account: make one in {platform.label}, then look again.
          </p>
          <button type="button" className="button" onClick={drafts.reload}>
            Look again
          </button>
        </div>
      )}
      {choices.length > 0 && (
        <form ref={formRef} onSubmit={submit} noValidate className="stack">
          {/* A failed second step is said beside the counts it acted on. */}
          <FormAlert message={result === null ? errors.form : null} />
          <Field
            label={platform.draftLabel}
            name="campaign_id"
            error={errors.fields.campaign_id}
            hint={`Newest first. Only drafts can be checked: a sent or scheduled ${platform.campaign} can no longer change.`}
          >
            {(control) => (
              <select {...control} defaultValue={firstCheckable?.id ?? ''} className="wide">
                {firstCheckable === undefined && (
                  <option value="">No draft has its recipients chosen yet</option>
                )}
                {choices.map((draft) => (
                  <option key={draft.id} value={draft.id} disabled={draft.audience_id === null}>
                    {draftWords(draft, platform)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div>
            <label className="checkbox">
              <input type="checkbox" name="verify_unverified" defaultChecked aria-describedby={hintId} />
              Verify unverified recipients
            </label>
            <p id={hintId} className="hint">
              Recipients never verified are verified now, count against your monthly quota, and get their
              results written back.
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={busy}>
              {platform.checkButton}
            </button>
            <button type="button" className="button" onClick={drafts.reload}>
              Look for new drafts
            </button>
            {busy && <span className="muted">Checking the recipients…</span>}
          </div>
        </form>
      )}
      {result !== null && (
        <CampaignCheckResult
          last={result}
          restored={restored}
          busy={busy}
          problem={errors.form}
          onExclude={(exclude) =>
            check({
              campaignId: result.check.campaign_id,
              verifyUnverified: result.verify_unverified,
              exclude,
            })
          }
        />
      )}
    </section>
  );
}
