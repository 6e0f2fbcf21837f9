/**
 * `npm run demo:mailchimp`: a stand-in for Mailchimp on this machine (the emulator the tests use),
 * with one account, an audience of a few dozen contacts and a draft campaign, so that Mailvet's
 * integration can be tried without a Mailchimp account. It prints the API key to connect with and
 * the command that starts Mailvet pointed at it; Ctrl-C stops it. Nothing leaves the machine but
 * Mailvet's own DNS and SMTP checks of the addresses.
 */
import { startMailchimpEmulator } from '../tests/mailchimp/emulator.ts';

const port = Number(process.env.DEMO_MAILCHIMP_PORT ?? 8091);
const emulator = await startMailchimpEmulator({ port });
const account = emulator.addAccount({ name: 'Demo Shop' });
const audience = emulator.addAudience(account, { name: 'Newsletter' });

// Real-looking contacts: deliverable providers, typos, a domain with no mail, throwaway and role
// addresses, and a few unsubscribed ones (a run leaves those alone).
const contacts = [
  'ada.lovelace@gmail.com',
  'grace.hopper@outlook.com',
  'alan.turing@yahoo.com',
  'margaret.hamilton@icloud.com',
  'katherine.johnson@gmial.com',
  'dennis.ritchie@hotmial.com',
  'barbara.liskov@example.com',
  'info@example.org',
  'sales@mailinator.com',
  'test@guerrillamail.com',
  'no-reply@nosuchdomain-mailvet-demo.com',
  'edsger@@dijkstra.nl',
  ...Array.from({ length: 24 }, (_, i) => `customer${i + 1}@gmail.com`),
];
for (const email of contacts) emulator.addMember(audience, { email, status: 'subscribed' });
for (const email of ['left.us@gmail.com', 'moved.on@outlook.com'])
  emulator.addMember(audience, { email, status: 'unsubscribed' });
const campaign = emulator.addCampaign(account, { audience, title: 'Black Friday preview', status: 'save' });

const base = emulator.baseUrlTemplate.replace(/\/3\.0$/, '');
console.log(`Mailchimp stand-in listening on http://127.0.0.1:${port}

  API key:      ${account.apiKey}
  audience:     ${audience.name} (${contacts.length} subscribed, 2 unsubscribed)
  campaign id:  ${campaign.id} (a draft, for the pre-campaign check)

In another terminal, start Mailvet pointed at it:

  MAILVET_MAILCHIMP_BASE_URL='${base}' npm start

then open http://localhost:8080, create an account, go to Integrations, connect with the key
above, and press "Validate now" on the audience. Ctrl-C here stops the stand-in.`);

const stop = async () => {
  await emulator.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
