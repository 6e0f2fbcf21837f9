/** Verify one address and read its result. */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { VerificationResult } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';
import { ResultCard } from '../verify/ResultCard';

const FIELDS = ['email'] as const;

export function VerifyPage() {
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<VerificationResult | null>(null);
  const [working, setWorking] = useState<string | null>(null);
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);

  const verify = async (address: string) => {
    if (busy) return;
    if (address.trim() === '') {
      setErrors({ form: null, fields: { email: 'Enter an address to verify.' } });
      return;
    }
    clear();
    setBusy(true);
    setWorking(address.trim());
    const outcome = await settle(api.POST('/api/v1/verify', { body: { email: address } }));
    setBusy(false);
    setWorking(null);
    if (outcome.ok) setResult(outcome.data);
    else fail(outcome.problem);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void verify(email);
  };

  return (
    <>
      <PageTitle>Verify an address</PageTitle>
      <form ref={formRef} onSubmit={submit} noValidate className="inline-form">
        <FormAlert message={errors.form} />
        <Field label="Email address" name="email" error={errors.fields.email}>
          {(control) => (
            <input
              {...control}
              type="text"
              inputMode="email"
              autoComplete="off"
              spellCheck={false}
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button primary" aria-disabled={busy}>
          Verify
        </button>
      </form>
      <p role="status" className="muted">
        {working === null ? '' : `Verifying ${working}… a mailbox probe can take a few seconds.`}
      </p>
      {result !== null && (
        <ResultCard
          result={result}
          onVerifySuggestion={(suggestion) => {
            setEmail(suggestion);
            void verify(suggestion);
          }}
        />
      )}
    </>
  );
}
