/**
 * The page the reset link opens: a new password for the link's account. Setting it signs out every
 * browser of the account, this one included, and the sign-in page takes over with a notice.
 */
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';
import { useLinkToken } from '../session/link-token';
import { useSession } from '../session/session';

const FIELDS = ['password'] as const;
export const PASSWORD_SET_NOTICE = 'Your password is set: sign in with it.';

export function ResetPasswordPage() {
  const token = useLinkToken();
  const { state, refresh } = useSession();
  const navigate = useNavigate();
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const password = String(new FormData(event.currentTarget).get('password'));
    if (password === '') return setErrors({ form: null, fields: { password: 'Choose a new password.' } });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/session/password-reset/confirm', { body: { token: token ?? '', password } }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    // Every session of the account ended, this browser's too.
    if (state.kind === 'signed-in') await refresh();
    navigate('/signin', { replace: true, state: { notice: PASSWORD_SET_NOTICE } });
  };

  return (
    <>
      <PageTitle>Choose a new password</PageTitle>
      {token === null ? (
        <FormAlert message="This link has no token: open the link from the email again, or ask for a new one." />
      ) : (
        <form ref={formRef} onSubmit={submit} noValidate className="stack">
          <FormAlert message={errors.form} />
          <Field
            label="New password"
            name="password"
            error={errors.fields.password}
            hint="At least 10 characters."
          >
            {(control) => (
              <input {...control} type="password" autoComplete="new-password" minLength={10} required />
            )}
          </Field>
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={busy}>
              Set password
            </button>
          </div>
        </form>
      )}
      <p>
        Link not working? <Link to="/forgot-password">Ask for a new one</Link>
      </p>
    </>
  );
}
