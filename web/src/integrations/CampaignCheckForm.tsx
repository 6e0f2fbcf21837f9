/**
 * The pre-campaign check: a draft campaign's recipients counted by category, those never verified
 * verified now if asked, and the campaign narrowed to leave out the invalid (or risky and invalid)
 * ones, either at once or as a second step once the counts are seen. Without an exclusion nothing
 * in Mailchimp changes but results written back.
 */
import { type FormEvent, useId, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { CampaignCheck, CampaignExclusion } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { CampaignCheckResult } from './CampaignCheckResult';

/** The one field shown with its own message; the API's others join the form's. */
const FIELDS = ['campaign_id'] as const;

const EXCLUDE_CHOICES: ReadonlyArray<{ value: '' | CampaignExclusion; label: string }> = [
  { value: '', label: 'Nobody: only count them' },
  { value: 'invalid', label: 'Invalid recipients' },
  { value: 'risky', label: 'Risky and invalid recipients' },
];

interface CheckRequest {
  campaignId: string;
  verifyUnverified: boolean;
  exclude: CampaignExclusion | null;
}

export function CampaignCheckForm({
  integrationId,
  headingId,
}: {
  integrationId: string;
  headingId: string;
}) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [result, setResult] = useState<{ check: CampaignCheck; verifyUnverified: boolean } | null>(null);
  const hintId = useId();

  const check = async (request: CheckRequest) => {
    if (busy) return;
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
    if (!outcome.ok) return fail(outcome.problem);
    setResult({ check: outcome.data, verifyUnverified: request.verifyUnverified });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const campaignId = String(form.get('campaign_id') ?? '').trim();
    setResult(null);
    if (campaignId === '')
      return setErrors({ form: null, fields: { campaign_id: 'Give the ID of a draft campaign.' } });
    const exclude = String(form.get('exclude') ?? '');
    void check({
      campaignId,
      verifyUnverified: form.get('verify_unverified') !== null,
      exclude: exclude === 'invalid' || exclude === 'risky' ? exclude : null,
    });
  };

  return (
    <section aria-labelledby={headingId} className="campaign-check">
      <h4 id={headingId}>Pre-campaign check</h4>
      <p className="muted small">
        Before sending a draft campaign: how many of its recipients are valid, risky or invalid, and leave out
        the ones that would bounce.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        {/* A failed second step is said beside the counts it acted on. */}
        <FormAlert message={result === null ? errors.form : null} />
        <Field
          label="Campaign ID"
          name="campaign_id"
          error={errors.fields.campaign_id}
          hint="The draft campaign’s ID in Mailchimp’s API, such as 42694e9e57."
        >
          {(control) => (
            <input {...control} type="text" autoComplete="off" spellCheck={false} maxLength={100} />
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
        <fieldset>
          <legend>Leave out of the campaign</legend>
          <div className="choices">
            {EXCLUDE_CHOICES.map((choice) => (
              <label key={choice.value} className="checkbox">
                <input
                  type="radio"
                  name="exclude"
                  value={choice.value}
                  defaultChecked={choice.value === ''}
                />
                {choice.label}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Check campaign
          </button>
          {busy && <span className="muted">Checking the recipients…</span>}
        </div>
      </form>
      {result !== null && (
        <CampaignCheckResult
          check={result.check}
          busy={busy}
          problem={errors.form}
          onExclude={(exclude) =>
            void check({
              campaignId: result.check.campaign_id,
              verifyUnverified: result.verifyUnverified,
              exclude,
            })
          }
        />
      )}
    </section>
  );
}
