/**
 * The HubSpot stand-in's portal (the emulator of tests/hubspot/): a CRM of a few contacts, a
 * "Customers" list of some of them and a draft marketing email to that list. Its contacts' domains
 * are answered by the demos' mail world (scripts/demo/world.ts) and cover the outcomes a newcomer
 * should see written back: confirmed, rejected, catch-all, disposable, role, typo and no-mail.
 */
import type { HubSpotEmulator } from '../../tests/hubspot/emulator.ts';
import { addContact, addList, type Portal } from '../../tests/hubspot/state.ts';

/** The portal's id and domain: the connection is named by the domain, as HubSpot's token info gives it. */
export const DEMO_PORTAL_ID = 7_000_001;
export const DEMO_HUB_DOMAIN = 'demo-crm.hubspot.test';

/** Contacts who may get email; the first five are the "Customers" list. */
export const HUBSPOT_CONTACTS: readonly string[] = [
  'ada.lovelace@gmail.com',
  'grace.hopper@outlook.com',
  'customer23@gmail.com',
  'jane@catchall.test',
  'jane@mailinator.com',
  'alan.turing@yahoo.com',
  'katherine.johnson@gmial.com',
  'postmaster@accept.test',
  'barbara.liskov@example.com',
];

/** A contact opted out of all email: a run of subscribed contacts leaves it alone. */
export const OPTED_OUT_CONTACTS: readonly string[] = ['moved.on@outlook.com'];

export const CUSTOMERS_LIST = 'Customers';
const CUSTOMERS_SIZE = 5;

/** The seeded portal and the private app token that reaches it. */
export interface HubSpotStandIn {
  portal: Portal;
  token: string;
  customersListId: string;
}

/** Adds the portal to a running emulator. */
export function seedHubSpotStandIn(emulator: HubSpotEmulator): HubSpotStandIn {
  const { portal, token } = emulator.addPortal(DEMO_PORTAL_ID, DEMO_HUB_DOMAIN);
  const ids = HUBSPOT_CONTACTS.map((email) => addContact(portal, email).id);
  for (const email of OPTED_OUT_CONTACTS) addContact(portal, email, { optedOut: true });
  const customers = addList(portal, CUSTOMERS_LIST, ids.slice(0, CUSTOMERS_SIZE));
  portal.emails.set('1001', {
    id: '1001',
    name: 'Spring offer',
    state: 'DRAFT',
    to: { contactIlsLists: { include: [customers.listId], exclude: [] } },
  });
  return { portal, token, customersListId: customers.listId };
}
