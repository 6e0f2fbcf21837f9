/**
 * The demos' mail world: the test mail world (tests/mailworld/: a DNS server and one SMTP host per
 * behaviour, on loopback) plus the names a newcomer types. Popular providers deliver to the host
 * that knows its users, disposable providers to the catch-all host (they take any address), and
 * `example.com`/`example.org` say "no mail here" with a null MX, as on the internet. Typos of the
 * providers and made-up domains have no entry: they do not exist, as on the internet.
 *
 * `npm run demo`, `npm run demo:mailchimp` and the README's example test all start this one, so the
 * verdicts the README prints are the ones a newcomer gets.
 */

import { WORLD_MAILBOXES } from '../../tests/mailworld/behaviours.ts';
import type { Zones } from '../../tests/mailworld/dns-server.ts';
import { type MailWorld, startMailWorld } from '../../tests/mailworld/mail-world.ts';

/** Domains whose mail goes to the world's host that knows its users (`mx.accept.test`). */
export const DELIVERING_DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com', 'hotmail.com'];
/** Disposable providers (on the disposable list), whose mail goes to the catch-all host. */
export const DISPOSABLE_DOMAINS = ['mailinator.com', 'guerrillamail.com'];
/** Documentation domains: a null MX (RFC 7505), as they have on the internet. */
export const NO_MAIL_DOMAINS = ['example.com', 'example.org'];

/**
 * The people of the demos' addresses, known to every host beside the world's own (alice, bob...,
 * user1..user100). The Mailchimp demo's customers 1-20 still have their mailboxes; 21-24 left.
 */
export const DEMO_MAILBOXES: readonly string[] = [
  ...WORLD_MAILBOXES,
  'ada.lovelace',
  'grace.hopper',
  'alan.turing',
  'margaret.hamilton',
  'katherine.johnson',
  'dennis.ritchie',
  "siobhan.o'brien",
  'sales',
  ...Array.from({ length: 20 }, (_, index) => `customer${index + 1}`),
];

/**
 * A real greylister asks the sender to come back in minutes: within a demo's run the host keeps
 * saying "try later", so every attempt (the list's re-checks too) sees the same answer.
 */
export const DEMO_GREYLIST_RETRY_MS = 15 * 60_000;

/** The zones the demos add to the mail world's. */
export function demoZones(): Zones {
  const zones: Zones = {};
  for (const domain of DELIVERING_DOMAINS)
    zones[domain] = { mx: [{ exchange: 'mx.accept.test', priority: 10 }] };
  for (const domain of DISPOSABLE_DOMAINS)
    zones[domain] = { mx: [{ exchange: 'mx.catchall.test', priority: 10 }] };
  for (const domain of NO_MAIL_DOMAINS) zones[domain] = { mx: [{ exchange: '', priority: 0 }] };
  return zones;
}

/** Starts the demos' mail world on free loopback ports. */
export function startDemoWorld(): Promise<MailWorld> {
  return startMailWorld({
    zones: demoZones(),
    mailboxes: DEMO_MAILBOXES,
    tune: { greylist: { retryAfterMs: DEMO_GREYLIST_RETRY_MS } },
  });
}

/**
 * What points a Mailvet process (`mailvet serve`, `mailvet verify`) at the world: its DNS server,
 * its SMTP port, and leave to probe loopback addresses. Its timeouts stay Mailvet's own: nothing in
 * the demo is slow, and the world's short test timeouts would turn a busy moment into a failure.
 */
export function worldEnvironment(world: MailWorld): Record<string, string> {
  return {
    MAILVET_DNS_SERVERS: world.servers,
    MAILVET_SMTP_PORT: String(world.smtpPort),
    MAILVET_SMTP_ALLOW_PRIVATE: 'true',
  };
}
