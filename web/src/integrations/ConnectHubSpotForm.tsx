/**
 * Connect a HubSpot portal with a private app's access token. Whether it has the scopes Mailvet
 * needs is the API's to say (422 on `api_key`, naming the missing scopes).
 */
import type { Integration } from '../api/types';
import { ConnectCredentialForm, type CredentialFormWords } from './ConnectCredentialForm';

const WORDS: CredentialFormWords = {
  provider: 'hubspot',
  platform: 'HubSpot',
  label: 'HubSpot private app token',
  hint: (
    <>
      In HubSpot: Settings → Integrations → Private Apps → “Create a private app”, with the CRM scopes for
      contacts, contact schemas and lists (read and write). It starts with <code>pat-</code>. Mailvet stores
      it encrypted and never shows it again.
    </>
  ),
  missing: 'Paste the access token of a HubSpot private app.',
  connected: (integration) => `Connected “${integration.account_name}”.`,
};

export function ConnectHubSpotForm({
  onConnected,
  submitLabel = 'Connect HubSpot',
}: {
  onConnected: (integration: Integration) => void;
  /** “Connect HubSpot”, unless that is the OAuth link beside it. */
  submitLabel?: string;
}) {
  return <ConnectCredentialForm words={WORDS} onConnected={onConnected} submitLabel={submitLabel} />;
}
