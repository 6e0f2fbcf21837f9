/**
 * The page the confirmation link opens: it sends the link's token at once and says whether the
 * address is confirmed. Works signed in (the session is asked again, so the banner goes) and
 * signed out (the link was opened on another device).
 */
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useLinkToken } from '../session/link-token';
import { useSession } from '../session/session';

type Outcome = { kind: 'working' } | { kind: 'confirmed' } | { kind: 'refused'; message: string };

export function ConfirmPage() {
  const token = useLinkToken();
  const { state, refresh } = useSession();
  const signedIn = state.kind === 'signed-in';
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'working' });
  const sent = useRef(false);

  useEffect(() => {
    // A link works once: never send it twice (React runs effects twice in development).
    if (sent.current) return;
    sent.current = true;
    if (token === null) {
      setOutcome({ kind: 'refused', message: 'This link has no token: open the link from the email again.' });
      return;
    }
    void (async () => {
      const answer = await settle(api.POST('/api/v1/session/confirm', { body: { token } }));
      if (!answer.ok) {
        const reason = answer.problem.errors[0]?.message ?? answer.problem.message;
        setOutcome({ kind: 'refused', message: reason });
        return;
      }
      setOutcome({ kind: 'confirmed' });
      if (signedIn) await refresh();
    })();
  }, [token, signedIn, refresh]);

  return (
    <>
      <PageTitle>Confirm your email address</PageTitle>
      {outcome.kind === 'working' && <p role="status">Confirming…</p>}
      {outcome.kind === 'confirmed' && (
        <>
          <FormNotice message="Your email address is confirmed: your account can verify addresses now." />
          <p>{signedIn ? <Link to="/verify">Verify an address</Link> : <Link to="/signin">Sign in</Link>}</p>
        </>
      )}
      {outcome.kind === 'refused' && (
        <>
          <FormAlert message={outcome.message} />
          <p>
            {signedIn
              ? 'The banner at the top of the page sends a new link.'
              : 'Sign in: the banner at the top of the page sends a new link.'}
          </p>
          {!signedIn && (
            <p>
              <Link to="/signin">Sign in</Link>
            </p>
          )}
        </>
      )}
    </>
  );
}
