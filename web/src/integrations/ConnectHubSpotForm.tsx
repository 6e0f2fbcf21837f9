/**
 * Connect a HubSpot portal with a private app's access token. Whether HubSpot takes it, and whether
 * it has the scopes Mailvet needs, is the API's to say (422 on `api_key`, naming missing scopes).
 */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Integration } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';

const FIELDS = ['api_key'] as const;

export function ConnectHubSpotForm({
  onConnected,
  submitLabel = 'Connect HubSpot',
}: {
  onConnected: (integration: Integration) => void;
  /** “Connect HubSpot”, unless that is the OAuth link beside it. */
  submitLabel?: string;
}) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const token = String(new FormData(event.currentTarget).get('api_key') ?? '').trim();
    setNotice(null);
    if (token === '')
      return setErrors({
        form: null,
        fields: { api_key: 'Paste the access token of a HubSpot private app.' },
      });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/integrations', { body: { provider: 'hubspot', api_key: token } }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    formRef.current?.reset();
    setNotice(`Connected “${outcome.data.account_name}”.`);
    onConnected(outcome.data);
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <Field
        label="HubSpot private app token"
        name="api_key"
        error={errors.fields.api_key}
        hint={
          <>
            In HubSpot: Settings → Integrations → Private Apps → “Create a private app”, with the CRM scopes
            for contacts, contact schemas and lists (read and write). It starts with <code>pat-</code>.
            Mailvet stores it encrypted and never shows it again.
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
        {busy && <span className="muted">Asking HubSpot…</span>}
      </div>
      <FormNotice message={notice} />
    </form>
  );
}
