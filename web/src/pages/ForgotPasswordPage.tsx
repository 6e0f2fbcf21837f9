/**
 * "Forgot password?": asks for a reset link. The answer is the same whether or not the address
 * has an account, so the page says what happens if it does.
 */
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';

const FIELDS = ['email'] as const;

export function ForgotPasswordPage() {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [sentTo, setSentTo] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    if (email === '')
      return setErrors({ form: null, fields: { email: 'Enter the email address you sign in with.' } });
    clear();
    setSentTo(null);
    setBusy(true);
    const outcome = await settle(api.POST('/api/v1/session/password-reset', { body: { email } }));
    setBusy(false);
    if (outcome.ok) setSentTo(email);
    else fail(outcome.problem);
  };

  return (
    <>
      <PageTitle>Reset your password</PageTitle>
      <FormNotice
        message={
          sentTo === null
            ? null
            : `If an account uses ${sentTo}, we sent it a link to choose a new password. The link works once, for an hour.`
        }
      />
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <Field label="Email" name="email" error={errors.fields.email}>
          {(control) => <input {...control} type="email" autoComplete="username" required />}
        </Field>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Send reset link
          </button>
        </div>
      </form>
      <p>
        Remembered it? <Link to="/signin">Sign in</Link>
      </p>
    </>
  );
}
