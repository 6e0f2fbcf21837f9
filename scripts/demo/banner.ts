/**
 * What `npm run demo` prints once everything runs: one fact per line, each line starting with its
 * label (`Dashboard:`, `Sign in:`, `Key:`, `Sample list:`...), then the addresses to try with what
 * the server answered for each, and commands ready to paste.
 */
import { formatResult } from '../../src/cli/format-result.ts';
import type { VerificationResult } from '../../src/verification/report.ts';

export interface BannerFacts {
  url: string;
  email: string;
  password: string;
  key: string;
  sampleList: string;
  /** The Mailchimp account the server is connected to, and its audience. */
  mailchimp: { accountName: string; audienceName: string; contacts: number };
  /** The HubSpot portal it is connected to: its list, its contacts, and the stand-in's address and token. */
  hubspot: {
    accountName: string;
    listName: string;
    listContacts: number;
    contacts: number;
    optedOut: number;
    url: string;
    token: string;
  };
  /** The server's answers, in the order to show them. */
  results: readonly VerificationResult[];
  /** What points a command line at the mail world (MAILVET_DNS_SERVERS...). */
  worldEnv: Record<string, string>;
  cliExample: readonly string[];
  dataDir: string;
  /** Whether the data directory goes when the demo stops (a temporary one). */
  removedAtExit: boolean;
  logFile: string;
}

export function demoBanner(facts: BannerFacts): string {
  const firstValid = facts.results.find((result) => result.status === 'VALID')?.email ?? 'alice@accept.test';
  const exports = Object.entries(facts.worldEnv)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return `
Dashboard: ${facts.url}
Sign in: ${facts.email} / ${facts.password}
Key: ${facts.key}
Sample list: ${facts.sampleList}
Mailchimp: connected to "${facts.mailchimp.accountName}", a stand-in on this machine: on the Integrations page, press Validate now on its "${facts.mailchimp.audienceName}" audience (${facts.mailchimp.contacts} contacts)
HubSpot: connected to "${facts.hubspot.accountName}", a stand-in on this machine: on the Integrations page, press Validate now on its "${facts.hubspot.listName}" list (${facts.hubspot.listContacts} contacts) or on All contacts (${facts.hubspot.contacts} contacts, ${facts.hubspot.optedOut} opted out of email)
HubSpot stand-in: ${facts.hubspot.url} with the private app token ${facts.hubspot.token} (after a run, GET ${facts.hubspot.url}/crm/v3/objects/contacts?properties=email,mailvet_status,mailvet_score shows what Mailvet wrote)
Data: ${facts.dataDir}
Server log: ${facts.logFile}

Addresses to try, as this server just verified them (upload the sample list on the Lists page to see them as a list):
${facts.results.map((result) => `  ${formatResult(result)}`).join('\n')}

With the key:
  curl -s ${facts.url}/api/v1/verify -H 'Authorization: Bearer ${facts.key}' -H 'Content-Type: application/json' -d '{"email": "${firstValid}"}'

From the command line, no server needed, in the same mail world:
  export ${exports}
  ./bin/mailvet verify ${facts.cliExample.join(' ')}

Nothing here reaches the internet: the domains above are answered by the demo's own DNS and mail servers on loopback.
Ctrl-C stops the demo${facts.removedAtExit ? ' and removes its data' : ''}.
`;
}
