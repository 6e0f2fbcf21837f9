/** Integrations: none yet; Mailchimp is next (DESIGN §3.4). */
import { PageTitle } from '../components/PageTitle';

export function IntegrationsPage() {
  return (
    <>
      <PageTitle>Integrations</PageTitle>
      <div className="empty card">
        <h2>Mailchimp integration — coming next</h2>
        <p>
          Connect a Mailchimp account to verify whole audiences, schedule cleaning runs, write the results
          back to your contacts and check new subscribers as they arrive. Contacts are never deleted.
        </p>
        <p className="muted">
          Until then, export an audience as CSV, upload it on the Lists page and import the downloaded
          results.
        </p>
      </div>
    </>
  );
}
