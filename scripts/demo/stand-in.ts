/**
 * The Mailchimp stand-in's shop (the emulator of tests/mailchimp/): one account, a "Newsletter"
 * audience of real-looking contacts and a draft campaign. Both demos seed it; every contact's domain
 * is answered by the demos' mail world (scripts/demo/world.ts), so a run ends in seconds there.
 */
import type {
  EmulatedAccount,
  EmulatedAudience,
  EmulatedCampaign,
  MailchimpEmulator,
} from '../../tests/mailchimp/emulator.ts';

/**
 * Deliverable providers, typos, a domain with no mail, throwaway and role addresses, a legal but
 * unusual one (an apostrophe, which a page must escape), one that is not an address, and customers
 * of whom a few have left their provider.
 */
export const SUBSCRIBED_CONTACTS: readonly string[] = [
  'ada.lovelace@gmail.com',
  'grace.hopper@outlook.com',
  'alan.turing@yahoo.com',
  'margaret.hamilton@icloud.com',
  'katherine.johnson@gmial.com',
  'dennis.ritchie@hotmial.com',
  'barbara.liskov@example.com',
  "siobhan.o'brien@gmail.com",
  'info@example.org',
  'sales@mailinator.com',
  'test@guerrillamail.com',
  'no-reply@nosuchdomain-mailvet-demo.com',
  'edsger@@dijkstra.nl',
  ...Array.from({ length: 24 }, (_, i) => `customer${i + 1}@gmail.com`),
];

/** Contacts who left the audience: a run leaves them alone. */
export const UNSUBSCRIBED_CONTACTS: readonly string[] = ['left.us@gmail.com', 'moved.on@outlook.com'];

/** The seeded shop. */
export interface StandInShop {
  account: EmulatedAccount;
  audience: EmulatedAudience;
  campaign: EmulatedCampaign;
}

/** Adds the shop to a running emulator. */
export function seedStandIn(emulator: MailchimpEmulator): StandInShop {
  const account = emulator.addAccount({ name: 'Demo Shop' });
  const audience = emulator.addAudience(account, { name: 'Newsletter' });
  for (const email of SUBSCRIBED_CONTACTS) emulator.addMember(audience, { email, status: 'subscribed' });
  for (const email of UNSUBSCRIBED_CONTACTS) emulator.addMember(audience, { email, status: 'unsubscribed' });
  const campaign = emulator.addCampaign(account, { audience, title: 'Black Friday preview', status: 'save' });
  return { account, audience, campaign };
}

/** Mailvet's MAILVET_MAILCHIMP_BASE_URL for the emulator (the client appends `/3.0` itself). */
export function mailchimpBaseUrl(emulator: MailchimpEmulator): string {
  return emulator.baseUrlTemplate.replace(/\/3\.0$/, '');
}
