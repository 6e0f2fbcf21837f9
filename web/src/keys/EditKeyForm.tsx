/** Rename a key or change its own caps; an empty cap removes it (the account's figure applies). */
import { type FormEvent, useEffect, useRef } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { ApiKey } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { parseKeyForm } from './limits';

const FIELDS = ['name', 'rate_limit', 'monthly_cap'] as const;

interface EditKeyFormProps {
  apiKey: ApiKey;
  onSaved: (key: ApiKey) => void;
  onClose: () => void;
}

export function EditKeyForm({ apiKey, onSaved, onClose }: EditKeyFormProps) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    const parsed = parseKeyForm(form, 'A key needs a name.');
    if (!parsed.ok) return setErrors({ form: null, fields: parsed.fields });
    const { name } = parsed;
    clear();
    setBusy(true);
    const outcome = await settle(
      api.PATCH('/api/v1/keys/{id}', { params: { path: { id: apiKey.id } }, body: { name, ...parsed.caps } }),
    );
    setBusy(false);
    if (outcome.ok) onSaved(outcome.data);
    else fail(outcome.problem);
  };

  return (
    <section aria-labelledby="edit-key-heading" className="card">
      <h2 id="edit-key-heading" ref={headingRef} tabIndex={-1}>
        Edit key “{apiKey.name}”
      </h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <Field label="Name" name="name" error={errors.fields.name}>
          {(control) => <input {...control} type="text" maxLength={200} defaultValue={apiKey.name} />}
        </Field>
        <div className="field-row">
          <Field
            label="Rate limit (optional)"
            name="rate_limit"
            error={errors.fields.rate_limit}
            hint="Requests per second; empty for the plan’s."
          >
            {(control) => (
              <input {...control} type="text" inputMode="numeric" defaultValue={apiKey.rate_limit ?? ''} />
            )}
          </Field>
          <Field
            label="Monthly cap (optional)"
            name="monthly_cap"
            error={errors.fields.monthly_cap}
            hint="Verifications a month; empty for the plan’s."
          >
            {(control) => (
              <input {...control} type="text" inputMode="numeric" defaultValue={apiKey.monthly_cap ?? ''} />
            )}
          </Field>
        </div>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Save limits
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
