/**
 * How long finished lists keep their rows and results: the account's setting (or the server's
 * default), changed within the plan's maximum. The API decides what is allowed: a refused value
 * shows its message under the field. Expired lists stay, with their counts.
 */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { countWords } from '../lib/count-words';

const FIELDS = ['retention_days'] as const;

/** The account's retention as the API answers it. */
export interface Retention {
  /** Days kept (0: until the list is deleted). */
  days: number;
  /** The account's own setting; null: the server's default. */
  setting: number | null;
}

interface RetentionFormProps {
  retention: Retention;
  /** The plan's most days (0: no maximum). */
  planMax: number;
  onSaved: (retention: Retention) => void;
}

/** "30 days", or what 0 means. */
export function keptFor(days: number): string {
  return days === 0 ? 'until the list is deleted' : countWords(days, 'day', 'days');
}

export function RetentionForm({ retention, planMax, onSaved }: RetentionFormProps) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [notice, setNotice] = useState<string | null>(null);

  const save = async (days: number | null) => {
    clear();
    setNotice(null);
    setBusy(true);
    const outcome = await settle(api.PATCH('/api/v1/account', { body: { retention_days: days } }));
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    const saved = { days: outcome.data.retention_days, setting: outcome.data.retention_days_setting };
    onSaved(saved);
    setNotice(`Saved: finished lists keep their results ${keptFor(saved.days)}.`);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const raw = String(new FormData(event.currentTarget).get('retention_days') ?? '').trim();
    if (!/^\d{1,6}$/.test(raw)) {
      setNotice(null);
      return setErrors({ form: null, fields: { retention_days: 'Enter a whole number of days.' } });
    }
    void save(Number(raw));
  };

  const hint =
    planMax === 0
      ? 'Days after a list finished; 0 keeps results until the list is deleted.'
      : `Days after a list finished, at most ${countWords(planMax, 'day', 'days')} on your plan.`;

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack" aria-label="Retention of results">
      <p>
        Finished lists keep their rows and results <strong>{keptFor(retention.days)}</strong>
        {retention.setting === null ? ' (the server’s default)' : ''}; then the results are deleted and the
        list stays with its counts.
      </p>
      <FormAlert message={errors.form} />
      <Field
        label="Keep results for (days)"
        name="retention_days"
        error={errors.fields.retention_days}
        hint={hint}
      >
        {(control) => (
          <input
            {...control}
            key={retention.days}
            type="number"
            inputMode="numeric"
            min={0}
            defaultValue={retention.days}
          />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={busy}>
          Save retention
        </button>
        {retention.setting !== null && (
          <button type="button" className="button" aria-disabled={busy} onClick={() => !busy && save(null)}>
            Use the server’s default
          </button>
        )}
      </div>
      <FormNotice message={notice} />
    </form>
  );
}
