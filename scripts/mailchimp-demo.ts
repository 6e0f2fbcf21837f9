/**
 * `npm run demo:mailchimp`: a stand-in for Mailchimp on this machine (the emulator the tests use),
 * with one account, an audience of a few dozen contacts and a draft campaign, so that Mailvet's
 * integration can be tried without a Mailchimp account. It prints the API key to connect with and
 * the command that starts Mailvet pointed at it; Ctrl-C stops it. The contacts' domains are answered
 * by the demos' mail world (scripts/demo/world.ts), which it starts too, on loopback: the command
 * points Mailvet's DNS and SMTP probe there, so nothing leaves the machine and a run ends in
 * seconds, internet or not. (`npm run demo` does all of it, Mailvet included, in one command.)
 *
 * The stand-in has no web app to look at contacts in, as Mailchimp has, so this script shows them as
 * the stand-in holds them (status, Mailvet's merge fields MV_STATUS, MV_SCORE, MV_CHECKED, and tags):
 * a table in this terminal each time they change, and the same on a read-only page of its own
 * (`/`, and `/contacts.json` for the JSON).
 *
 * DEMO_MAILCHIMP_PORT (default 8091) and DEMO_CONTACTS_PORT (default 8092) choose the ports; 0 takes
 * a free one. The banner prints the ports in use.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EmulatedMember, startMailchimpEmulator } from '../tests/mailchimp/emulator.ts';
import { mailchimpBaseUrl, SUBSCRIBED_CONTACTS, seedStandIn } from './demo/stand-in.ts';
import { startDemoWorld, worldEnvironment } from './demo/world.ts';

const POLL_MS = 1000;

const emulator = await startMailchimpEmulator({ port: portFrom('DEMO_MAILCHIMP_PORT', 8091) });
const world = await startDemoWorld();
const { account, audience, campaign } = seedStandIn(emulator);

/** A contact as Mailchimp holds it, with what a Mailvet run writes back. */
interface Contact {
  email: string;
  status: string;
  MV_STATUS: string | null;
  MV_SCORE: number | null;
  MV_CHECKED: string | null;
  tags: string[];
}
const COLUMNS = ['email', 'status', 'MV_STATUS', 'MV_SCORE', 'MV_CHECKED', 'tags'] as const;

const contactOf = ({ email, status, mergeFields, tags }: EmulatedMember): Contact => ({
  email,
  status,
  MV_STATUS: typeof mergeFields.MV_STATUS === 'string' ? mergeFields.MV_STATUS : null,
  MV_SCORE: typeof mergeFields.MV_SCORE === 'number' ? mergeFields.MV_SCORE : null,
  MV_CHECKED: typeof mergeFields.MV_CHECKED === 'string' ? mergeFields.MV_CHECKED : null,
  tags,
});
const currentContacts = () => emulator.members(audience).map(contactOf);
const cellsOf = (contact: Contact) =>
  COLUMNS.map((column) => {
    const value = contact[column];
    return Array.isArray(value) ? value.join(' ') : String(value ?? '');
  });

/** The contacts as aligned columns, under a line naming the audience and the time. */
function contactsTable(list: Contact[]): string {
  const rows = [[...COLUMNS], ...list.map(cellsOf)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const time = new Date().toTimeString().slice(0, 8);
  return [
    `${audience.name}: ${list.length} contacts at ${time}`,
    line(rows[0]!),
    rule,
    ...rows.slice(1).map(line),
  ]
    .join('\n')
    .concat('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The read-only page: the same table, reloaded every few seconds so a run's writes show up. */
function contactsPage(list: Contact[]): string {
  const head = COLUMNS.map((column) => `<th>${escapeHtml(column)}</th>`).join('');
  const body = list
    .map(
      (contact) =>
        `<tr>${cellsOf(contact)
          .map((cell) => `<td>${escapeHtml(cell)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="3">
<title>${escapeHtml(audience.name)}: Mailchimp stand-in</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}
th,td{text-align:left;padding:3px 10px;border-bottom:1px solid #ddd}</style></head>
<body><h1>${escapeHtml(account.name)}: ${escapeHtml(audience.name)}</h1>
<p>${list.length} contacts as the Mailchimp stand-in holds them (this page reloads every 3 s;
<a href="/contacts.json">JSON</a>).</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></body></html>
`;
}

const send = (res: ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
};
const contactsServer = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'text/plain; charset=utf-8', 'read-only\n');
  }
  if (path === '/') return send(res, 200, 'text/html; charset=utf-8', contactsPage(currentContacts()));
  if (path === '/contacts.json')
    return send(
      res,
      200,
      'application/json; charset=utf-8',
      JSON.stringify({ audience: audience.name, contacts: currentContacts() }),
    );
  send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
});
await new Promise<void>((resolve, reject) => {
  contactsServer.once('error', reject);
  contactsServer.listen(portFrom('DEMO_CONTACTS_PORT', 8092), '127.0.0.1', resolve);
});
const contactsUrl = `http://127.0.0.1:${(contactsServer.address() as AddressInfo).port}/`;

// The table first, then the banner, so the instructions stay in view.
let shown = JSON.stringify(currentContacts());
process.stdout.write(contactsTable(JSON.parse(shown) as Contact[]));
const worldVariables = Object.entries(worldEnvironment(world))
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');
console.log(`
Mailchimp stand-in listening on ${new URL(emulator.baseUrlTemplate).origin}

  API key:      ${account.apiKey}
  audience:     ${audience.name} (${SUBSCRIBED_CONTACTS.length} subscribed, 2 unsubscribed)
  campaign id:  ${campaign.id} (a draft, for the pre-campaign check)
  contacts:     ${contactsUrl} (JSON: ${contactsUrl}contacts.json), and a table here on each change

In another terminal, start Mailvet pointed at it and at the demo's mail world (DNS and mail servers
on loopback that answer for the contacts' domains, so no internet is needed):

  ${worldVariables} MAILVET_MAILCHIMP_BASE_URL='${mailchimpBaseUrl(emulator)}' npm start

then open http://localhost:8080, create an account, go to Integrations, connect with the key
above, and press "Validate now" on the audience. Ctrl-C here stops the stand-in.
`);

// A run writes its members over a few polls: a change is printed once it has held for one poll,
// so a half-written audience is not printed, and each change once, never each poll.
let previous = shown;
const poll = setInterval(() => {
  const now = JSON.stringify(currentContacts());
  if (now !== shown && now === previous) {
    shown = now;
    process.stdout.write(`\n${contactsTable(JSON.parse(now) as Contact[])}`);
  }
  previous = now;
}, POLL_MS);

const stop = async () => {
  clearInterval(poll);
  contactsServer.closeAllConnections();
  await Promise.all([
    emulator.close(),
    world.close(),
    new Promise((resolve) => contactsServer.close(resolve)),
  ]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

/** The port in `name`, else `fallback`; 0 means a free one. */
function portFrom(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number (0 for a free one), not ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return port;
}
