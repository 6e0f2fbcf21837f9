/**
 * The addresses `npm run demo` offers to try, one for each thing the mail world can show, and its
 * sample list of the same addresses. What each address gets is never written here: the demo asks
 * its server and prints the answer.
 */

/** An address to try, and the name of the person on the sample list. */
export interface DemoAddress {
  email: string;
  name: string;
}

export const DEMO_ADDRESSES: readonly DemoAddress[] = [
  // accept.test's server knows its users and rejects the others.
  { email: 'alice@accept.test', name: 'Alice' },
  { email: 'ghost@accept.test', name: 'Ghost' },
  // catchall.test accepts any address, so no mailbox can be confirmed there.
  { email: 'jane@catchall.test', name: 'Jane' },
  // greylist.test answers "try again later" to a first attempt.
  { email: 'alice@greylist.test', name: 'Alice' },
  { email: 'carol@full.test', name: 'Carol' },
  { email: 'dave@disabled.test', name: 'Dave' },
  // blocklist.test refuses the prober itself, which says nothing about the mailbox.
  { email: 'erin@blocklist.test', name: 'Erin' },
  // A disposable provider, given a mail host in the demo's DNS.
  { email: 'jane@mailinator.com', name: 'Jane' },
  // A typo of gmail.com: no such domain, and a suggestion.
  { email: 'bob@gmial.com', name: 'Bob' },
  { email: 'bob@nowhere.test', name: 'Bob' },
  { email: 'postmaster@accept.test', name: 'Postmaster' },
  { email: 'ada.lovelace@gmail.com', name: 'Ada' },
  // A null MX (RFC 7505): the domain says it takes no mail.
  { email: 'info@example.org', name: 'Info' },
  { email: 'john..doe@accept.test', name: 'John' },
];

/** The sample list: a header, then a row per address (no field needs quoting). */
export function sampleCsv(addresses: readonly DemoAddress[] = DEMO_ADDRESSES): string {
  return ['email,first_name', ...addresses.map(({ email, name }) => `${email},${name}`)]
    .join('\n')
    .concat('\n');
}

/**
 * The addresses of the `mailvet verify` line the demo prints, and of the README's example (whose
 * printed lines tests/demo/readme-examples.test.ts checks against this same world).
 */
export const CLI_EXAMPLE: readonly string[] = [
  'alice@accept.test',
  'ghost@accept.test',
  'jane@catchall.test',
  'alice@greylist.test',
  'erin@blocklist.test',
  'jane@mailinator.com',
  'bob@gmial.com',
  'bob@nowhere.test',
  'john..doe@accept.test',
];
