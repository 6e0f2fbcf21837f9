/**
 * Sign in with an email address and a password (the session cookie is set by the API). A notice
 * comes from the session (it ended) or from the page that sent the person here (a password just
 * set); "Forgot password?" shows on a server that emails reset links.
 */
import type { FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';
import { useSession } from '../session/session';
import { useSessionSettings } from '../session/settings';

const FIELDS = ['email', 'password'] as const;

export function SignInPage({ notice }: { notice?: string | undefined }) {
  const { refresh } = useSession();
  const { errors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const settings = useSessionSettings();
  const sentHere = (useLocation().state as { notice?: unknown } | null)?.notice;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/session', {
        body: { email: String(form.get('email')), password: String(form.get('password')) },
      }),
    );
    setBusy(false);
    if (outcome.ok) await refresh();
    else fail(outcome.problem);
  };

  return (
    <>
      <PageTitle>Sign in to Mailvet</PageTitle>
      <FormNotice message={notice ?? (typeof sentHere === 'string' ? sentHere : null)} />
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <Field label="Email" name="email" error={errors.fields.email}>
          {(control) => <input {...control} type="email" autoComplete="username" required />}
        </Field>
        <Field label="Password" name="password" error={errors.fields.password}>
          {(control) => <input {...control} type="password" autoComplete="current-password" required />}
        </Field>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Sign in
          </button>
        </div>
      </form>
      {settings?.password_reset === true && (
        <p>
          <Link to="/forgot-password">Forgot password?</Link>
        </p>
      )}
      <p>
        New to Mailvet? <Link to="/signup">Create an account</Link>
      </p>
    </>
  );
}
