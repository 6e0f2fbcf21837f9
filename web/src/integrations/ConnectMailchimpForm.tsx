/**
 * Connect a Mailchimp account with one of its API keys. Whether the key has the right shape, and
 * whether Mailchimp takes it, is the API's to say (422 on `api_key`); the form only asks for one.
 */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Integration } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';

const FIELDS = ['api_key'] as const;

export function ConnectMailchimpForm({
  onConnected,
  submitLabel = 'Connect Mailchimp',
}: {
  onConnected: (integration: Integration) => void;
  /** The button's name: “Connect Mailchimp”, unless that is the OAuth link beside it. */
  submitLabel?: string;
}) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const apiKey = String(new FormData(event.currentTarget).get('api_key') ?? '').trim();
    setNotice(null);
    if (apiKey === '')
      return setErrors({ form: null, fields: { api_key: 'Paste an API key of your Mailchimp account.' } });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/integrations', { body: { provider: 'mailchimp', api_key: apiKey } }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    formRef.current?.reset();
    setNotice(`Connected “${outcome.data.account_name}” (${outcome.data.dc}).`);
    onConnected(outcome.data);
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <Field
        label="Mailchimp API key"
        name="api_key"
        error={errors.fields.api_key}
        hint={
          <>
            In Mailchimp: Profile → Extras → API keys, then “Create A Key”. It ends with your account’s data
            centre, such as <code>-us21</code>. Mailvet stores it encrypted and never shows it again.
          </>
        }
      >
        {(control) => (
          <input {...control} type="password" autoComplete="off" spellCheck={false} maxLength={200} />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={busy}>
          {submitLabel}
        </button>
        {busy && <span className="muted">Asking Mailchimp…</span>}
      </div>
      <FormNotice message={notice} />
    </form>
  );
}
