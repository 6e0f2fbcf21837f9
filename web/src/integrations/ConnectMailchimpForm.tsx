/** Connect a Mailchimp account with one of its API keys. */
import type { Integration } from '../api/types';
import { ConnectCredentialForm, type CredentialFormWords } from './ConnectCredentialForm';

const WORDS: CredentialFormWords = {
  provider: 'mailchimp',
  platform: 'Mailchimp',
  label: 'Mailchimp API key',
  hint: (
    <>
      In Mailchimp: Profile → Extras → API keys, then “Create A Key”. It ends with your account’s data centre,
      such as <code>-us21</code>. Mailvet stores it encrypted and never shows it again.
    </>
  ),
  missing: 'Paste an API key of your Mailchimp account.',
  connected: (integration) => `Connected “${integration.account_name}” (${integration.dc}).`,
};

export function ConnectMailchimpForm({
  onConnected,
  submitLabel = 'Connect Mailchimp',
}: {
  onConnected: (integration: Integration) => void;
  /** The button's name: “Connect Mailchimp”, unless that is the OAuth link beside it. */
  submitLabel?: string;
}) {
  return <ConnectCredentialForm words={WORDS} onConnected={onConnected} submitLabel={submitLabel} />;
}
