/** Create a key: a name and optional caps of its own (never above the account's). */
import type { FormEvent } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { CreatedKey } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { parseKeyForm } from './limits';

const FIELDS = ['name', 'rate_limit', 'monthly_cap'] as const;

export function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    const parsed = parseKeyForm(form, 'Give the key a name.');
    if (!parsed.ok) return setErrors({ form: null, fields: parsed.fields });
    const { name } = parsed;
    const { rate_limit, monthly_cap } = parsed.caps;
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/keys', {
        body: {
          name,
          ...(rate_limit !== null && { rate_limit }),
          ...(monthly_cap !== null && { monthly_cap }),
        },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    formRef.current?.reset();
    onCreated(outcome.data);
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <Field label="Name" name="name" error={errors.fields.name} hint="Where it is used, e.g. “CRM sync”.">
        {(control) => <input {...control} type="text" maxLength={200} autoComplete="off" />}
      </Field>
      <div className="field-row">
        <Field
          label="Rate limit (optional)"
          name="rate_limit"
          error={errors.fields.rate_limit}
          hint="Requests per second, below your plan’s."
        >
          {(control) => <input {...control} type="text" inputMode="numeric" />}
        </Field>
        <Field
          label="Monthly cap (optional)"
          name="monthly_cap"
          error={errors.fields.monthly_cap}
          hint="Verifications a month, below your plan’s."
        >
          {(control) => <input {...control} type="text" inputMode="numeric" />}
        </Field>
      </div>
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}
