/**
 * Sign up: a new account on the default plan, its owner, and a session at once. Empty required
 * fields are named here, all at once, before asking the API (which reports only the first fault).
 */
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';
import { useSession } from '../session/session';

const FIELDS = ['email', 'password', 'account_name'] as const;

export function SignUpPage() {
  const { refresh } = useSession();
  const navigate = useNavigate();
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    const accountName = String(form.get('account_name')).trim();
    const missing = {
      ...(String(form.get('email')).trim() === '' && { email: 'Enter your email address: it is required.' }),
      ...(String(form.get('password')) === '' && { password: 'Choose a password: it is required.' }),
    };
    // Focus goes to the first field named (useApiForm).
    if (Object.keys(missing).length > 0) return setErrors({ form: null, fields: missing });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/signup', {
        body: {
          email: String(form.get('email')),
          password: String(form.get('password')),
          ...(accountName !== '' && { account_name: accountName }),
        },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    navigate('/', { replace: true });
    await refresh();
  };

  return (
    <>
      <PageTitle>Create your Mailvet account</PageTitle>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <Field label="Email" name="email" error={errors.fields.email}>
          {(control) => <input {...control} type="email" autoComplete="email" required />}
        </Field>
        <Field label="Password" name="password" error={errors.fields.password} hint="At least 10 characters.">
          {(control) => (
            <input {...control} type="password" autoComplete="new-password" minLength={10} required />
          )}
        </Field>
        <Field
          label="Account name (optional)"
          name="account_name"
          error={errors.fields.account_name}
          hint="Your company or project; your email address when left empty."
        >
          {(control) => <input {...control} type="text" autoComplete="organization" maxLength={200} />}
        </Field>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Create account
          </button>
        </div>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </>
  );
}
