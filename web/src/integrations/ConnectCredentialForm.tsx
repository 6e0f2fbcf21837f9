/**
 * Connect a platform with a credential pasted from its settings (Mailchimp's API key, a HubSpot
 * private app's token). Whether the platform takes it is the API's to say (422 on `api_key`); the
 * form only asks for one. Each platform's words are its wrapper's (ConnectMailchimpForm, …).
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Integration } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';

const FIELDS = ['api_key'] as const;

export interface CredentialFormWords {
  provider: 'mailchimp' | 'hubspot';
  /** The platform's name: “Asking Mailchimp…”. */
  platform: string;
  label: string;
  hint: ReactNode;
  /** Said when the field is left empty. */
  missing: string;
  /** Said once connected. */
  connected: (integration: Integration) => string;
}

export function ConnectCredentialForm({
  words,
  onConnected,
  submitLabel,
}: {
  words: CredentialFormWords;
  onConnected: (integration: Integration) => void;
  submitLabel: string;
}) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const credential = String(new FormData(event.currentTarget).get('api_key') ?? '').trim();
    setNotice(null);
    if (credential === '') return setErrors({ form: null, fields: { api_key: words.missing } });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/integrations', { body: { provider: words.provider, api_key: credential } }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    formRef.current?.reset();
    setNotice(words.connected(outcome.data));
    onConnected(outcome.data);
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <Field label={words.label} name="api_key" error={errors.fields.api_key} hint={words.hint}>
        {(control) => (
          <input {...control} type="password" autoComplete="off" spellCheck={false} maxLength={200} />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={busy}>
          {submitLabel}
        </button>
        {busy && <span className="muted">Asking {words.platform}…</span>}
      </div>
      <FormNotice message={notice} />
    </form>
  );
}
