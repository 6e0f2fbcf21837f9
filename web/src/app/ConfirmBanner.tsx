/**
 * While the account waits for its address to be confirmed (a sign-up on a server with a mail
 * relay), a banner on every signed-in page says why verifications are refused and sends the link
 * again. Its live region is always there, so what Resend did is announced.
 */
import { useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { useSession, useSignedIn } from '../session/session';

export function ConfirmBanner() {
  const session = useSignedIn();
  const { refresh } = useSession();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!session.user.awaiting_confirmation) return null;

  const resend = async () => {
    if (busy) return;
    setBusy(true);
    setNotice(null);
    setError(null);
    const outcome = await settle(api.POST('/api/v1/session/confirm/resend'));
    setBusy(false);
    if (outcome.ok) setNotice(`Sent: look for it at ${session.user.email}. It replaces the earlier link.`);
    // Confirmed meanwhile (the link opened in another tab): the session says so now.
    else if (outcome.status === 409) await refresh();
    else setError(outcome.problem.message);
  };

  return (
    <section className="alert alert-warn banner confirm-banner" aria-label="Address confirmation">
      <p>
        <strong>Confirm your email address to start verifying.</strong> We sent a link to {session.user.email}
        ; until you follow it, verifications, lists, integrations and API keys are refused.
      </p>
      <p className="confirm-banner-actions">
        <button type="button" className="button" onClick={resend} aria-disabled={busy}>
          Resend
        </button>
        <span role="status">{notice}</span>
      </p>
      {error !== null && <p role="alert">{error}</p>}
    </section>
  );
}
