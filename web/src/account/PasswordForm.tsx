/** Change the password; the API ends the user's other sessions, this one stays signed in. */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';

const FIELDS = ['current_password', 'new_password'] as const;

export function PasswordForm({ email }: { email: string }) {
  const { errors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    clear();
    setNotice(null);
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/account/password', {
        body: {
          current_password: String(form.get('current_password')),
          new_password: String(form.get('new_password')),
        },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    formRef.current?.reset();
    setNotice('Password changed. Your other sessions were signed out.');
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      {/* Lets a password manager store the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
      <Field label="Current password" name="current_password" error={errors.fields.current_password}>
        {(control) => <input {...control} type="password" autoComplete="current-password" />}
      </Field>
      <Field
        label="New password"
        name="new_password"
        error={errors.fields.new_password}
        hint="At least 10 characters."
      >
        {(control) => <input {...control} type="password" autoComplete="new-password" minLength={10} />}
      </Field>
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={busy}>
          Change password
        </button>
      </div>
      <FormNotice message={notice} />
    </form>
  );
}
