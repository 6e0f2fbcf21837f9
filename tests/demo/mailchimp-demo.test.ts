/**
 * The README's "Try it without a Mailchimp account", done as a user does it: `npm run demo:mailchimp`
 * (scripts/mailchimp-demo.ts, a child process on free ports), then a real `mailvet serve` started
 * with the printed variables: the stand-in's base URL, and the DNS server and SMTP port of the mail
 * world the demo started, which answers the contacts' domains (no internet here, nor needed). Then
 * through the HTTP API as the dashboard does: sign up, connect with the printed key, validate the
 * "Newsletter" audience with write-back, which ends in seconds with verdicts from that world. The contacts' scores and tags are then read where the README says a user sees them:
 * the demo's contacts page (and its JSON) and the table it prints in its terminal.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { categoryOf } from '../../src/integrations/categories.ts';
import { CATEGORY_TAGS } from '../../src/integrations/mailchimp/write-back.ts';
import type { Status } from '../../src/verification/report.ts';
import { type DashboardServer, startDashboardServer } from '../dashboard/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNSUBSCRIBED = ['left.us@gmail.com', 'moved.on@outlook.com'];
const COLUMNS = ['email', 'status', 'MV_STATUS', 'MV_SCORE', 'MV_CHECKED', 'tags'];

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted on field by field
type ApiJson = any;

interface Contact {
  email: string;
  status: string;
  MV_STATUS: string | null;
  MV_SCORE: number | null;
  MV_CHECKED: string | null;
  tags: string[];
}

let demo: ChildProcess;
let demoOut = '';
let demoErr = '';
let demoExit: Promise<unknown>;
let banner: { apiKey: string; baseUrl: string; contactsUrl: string; world: Record<string, string> };
let mailvet: DashboardServer;

/** Waits for `check` to give a value (not undefined), polling until the hang guard. */
async function waitFor<T>(
  what: string | (() => string),
  check: () => T | undefined | Promise<T | undefined>,
  guardMs: number,
) {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    // A hang guard, not a timing assertion: on a slow machine it only has to end.
    if (Date.now() > deadline)
      throw new Error(
        `hang guard: ${typeof what === 'string' ? what : what()}; demo stderr: ${demoErr || '(none)'}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

before(async () => {
  demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/mailchimp-demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, DEMO_MAILCHIMP_PORT: '0', DEMO_CONTACTS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  demoExit = once(demo, 'exit');
  demo.stdout!.on('data', (chunk: Buffer) => {
    demoOut += chunk.toString();
  });
  demo.stderr!.on('data', (chunk: Buffer) => {
    demoErr += chunk.toString();
  });
  banner = await waitFor(
    'the demo prints its banner',
    () => {
      if (demo.exitCode !== null) throw new Error(`the demo exited ${demo.exitCode}: ${demoErr}`);
      if (!demoOut.includes('stops the stand-in.')) return undefined;
      const apiKey = /API key:\s+(\S+)/.exec(demoOut)?.[1];
      const command = /^ {2}(.*) MAILVET_MAILCHIMP_BASE_URL='([^']+)' npm start$/m.exec(demoOut);
      const contactsUrl = /contacts:\s+(http:\/\/\S+\/)/.exec(demoOut)?.[1];
      assert.ok(apiKey && command && contactsUrl, `banner: ${demoOut}`);
      const world = Object.fromEntries(
        command[1]!.split(' ').map((pair) => pair.split('=') as [string, string]),
      );
      return { apiKey, baseUrl: command[2]!, contactsUrl, world };
    },
    60_000,
  );
  // The printed variables over the harness's own world: every contact's domain is answered by the
  // demo's world, so no address waits for a re-check (five minutes by default) and the run ends.
  assert.deepEqual(Object.keys(banner.world).sort(), [
    'MAILVET_DNS_SERVERS',
    'MAILVET_SMTP_ALLOW_PRIVATE',
    'MAILVET_SMTP_PORT',
  ]);
  mailvet = await startDashboardServer({
    env: {
      ...banner.world,
      MAILVET_MAILCHIMP_BASE_URL: banner.baseUrl,
      // A run looks at its list and write batches this often: the default 5 s only makes it slower.
      MAILVET_RUN_POLL_MS: '100',
    },
  });
});

after(async () => {
  await mailvet?.close();
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const killer = setTimeout(() => demo.kill('SIGKILL'), 5_000);
    demo.kill('SIGTERM');
    await demoExit;
    clearTimeout(killer);
  }
});

/** The demo's contacts, from its own JSON. */
async function contacts(): Promise<Contact[]> {
  const response = await fetch(`${banner.contactsUrl}contacts.json`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { contacts: Contact[] }).contacts;
}

/** The rows of the last table the demo printed, split into cells (two spaces or more apart). */
function lastPrintedTable(): string[][] {
  const lines = demoOut.split('\n');
  const header = lines.findLastIndex((line) => line.split(/\s{2,}/).join() === COLUMNS.join());
  if (header === -1) return [];
  const end = lines.indexOf('', header);
  return lines.slice(header + 2, end === -1 ? undefined : end).map((line) => line.split(/\s{2,}/));
}
const tablesPrinted = () => demoOut.split('\n').filter((line) => line.startsWith('email  ')).length;

test('the stand-in shows its contacts, escaped, on its page and in its terminal', async () => {
  const before = await contacts();
  assert.equal(before.length, 39);
  assert.equal(before.filter((contact) => contact.status === 'subscribed').length, 37);
  assert.deepEqual(
    before.filter((contact) => contact.status === 'unsubscribed').map((contact) => contact.email),
    UNSUBSCRIBED,
  );
  assert.ok(before.every((contact) => contact.MV_STATUS === null && contact.tags.length === 0));

  const page = await fetch(banner.contactsUrl);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.equal(html.match(/<tr><td>/g)?.length, 39, 'a row per contact');
  assert.ok(html.includes('<td>edsger@@dijkstra.nl</td>'));
  // An apostrophe is legal in an address and is markup in HTML: escaped, as < > & and " are.
  assert.ok(html.includes('<td>siobhan.o&#39;brien@gmail.com</td>'), 'the address escaped');
  assert.ok(!html.includes("o'brien"), 'never raw');

  const written = await fetch(banner.contactsUrl, { method: 'POST', body: 'x' });
  assert.equal(written.status, 405, 'read-only');

  // The terminal's table: every contact, once, though the server took many polls to start.
  assert.deepEqual(
    lastPrintedTable().map((row) => row[0]),
    before.map((contact) => contact.email),
  );
  assert.equal(tablesPrinted(), 1, 'printed once, not on every poll');
});

test('Validate now writes scores and tags, seen on the contacts page and in the terminal table', async () => {
  const base = `${mailvet.url}/api/v1`;
  const signup = await fetch(`${base}/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@demo-shop.test', password: 'correct horse battery' }),
  });
  assert.equal(signup.status, 201, await signup.clone().text());
  const cookie = signup.headers.getSetCookie().find((line) => line.startsWith('mailvet_session='));
  assert.ok(cookie, 'signed in');
  const csrf = ((await signup.json()) as { csrf_token: string }).csrf_token;
  const api = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: ApiJson }> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        cookie: cookie.split(';')[0]!,
        ...(method !== 'GET' && { 'x-csrf-token': csrf, origin: mailvet.url }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };

  const connected = await api('POST', '/integrations', { provider: 'mailchimp', api_key: banner.apiKey });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  assert.equal(connected.body.account_name, 'Demo Shop');
  const integration = connected.body.id as string;
  const audiences = await api('GET', `/integrations/${integration}/audiences`);
  assert.equal(audiences.status, 200, JSON.stringify(audiences.body));
  const newsletter = (audiences.body.audiences as Array<{ id: string; name: string }>).find(
    (audience) => audience.name === 'Newsletter',
  );
  assert.ok(newsletter, JSON.stringify(audiences.body));

  // The dashboard's "Validate now" with its default settings.
  const started = await api('POST', `/integrations/${integration}/runs`, {
    audience_id: newsletter.id,
    statuses: ['subscribed'],
    scope: 'all',
    write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  let seen: unknown;
  const run = await waitFor(
    () => `the run ends: ${JSON.stringify(seen)}; server: ${mailvet.problems()}`,
    async () => {
      const { body } = await api('GET', `/integrations/${integration}/runs/${started.body.id}`);
      seen = body;
      return ['completed', 'failed', 'cancelled'].includes(body.state) ? body : undefined;
    },
    120_000,
  );
  assert.equal(run.state, 'completed', `${JSON.stringify(run)}; server: ${mailvet.problems()}`);
  assert.equal(run.counts.members, 37);
  assert.equal(run.counts.written, 37);
  assert.equal(run.counts.write_errors, 0);

  // What the stand-in holds, read from the demo's own page.
  const after = await contacts();
  const subscribed = after.filter((each) => each.status === 'subscribed');
  assert.equal(subscribed.length, 37, 'nobody unsubscribed (not asked)');
  for (const contact of subscribed) {
    assert.ok(contact.MV_STATUS, `${contact.email} has MV_STATUS`);
    assert.equal(typeof contact.MV_SCORE, 'number', contact.email);
    assert.match(contact.MV_CHECKED ?? '', /^\d{4}-\d{2}-\d{2}$/, contact.email);
    const mailvetTags = contact.tags.filter((tag) => tag.startsWith('mailvet-'));
    assert.deepEqual(mailvetTags, [CATEGORY_TAGS[categoryOf(contact.MV_STATUS as Status)]], contact.email);
  }
  for (const email of UNSUBSCRIBED) {
    assert.deepEqual(
      after.find((contact) => contact.email === email),
      { email, status: 'unsubscribed', MV_STATUS: null, MV_SCORE: null, MV_CHECKED: null, tags: [] },
      `${email} untouched`,
    );
  }
  const invalidSyntax = after.find((contact) => contact.email === 'edsger@@dijkstra.nl');
  assert.deepEqual(invalidSyntax?.tags, ['mailvet-invalid']);
  // The demo's world decided: its providers know these people, and customer 22 has left.
  const statusOf = (email: string) => after.find((contact) => contact.email === email)?.MV_STATUS;
  assert.deepEqual(
    [
      'ada.lovelace@gmail.com',
      'grace.hopper@outlook.com',
      'alan.turing@yahoo.com',
      'customer22@gmail.com',
    ].map(statusOf),
    ['VALID', 'VALID', 'VALID', 'INVALID'],
  );

  const html = await (await fetch(banner.contactsUrl)).text();
  const ada = after.find((contact) => contact.email === 'ada.lovelace@gmail.com')!;
  assert.ok(
    html.includes(
      `<tr><td>ada.lovelace@gmail.com</td><td>subscribed</td><td>${ada.MV_STATUS}</td><td>${ada.MV_SCORE}</td>` +
        `<td>${ada.MV_CHECKED}</td><td>${ada.tags.join(' ')}</td></tr>`,
    ),
    'the page shows the written fields and tag',
  );

  // The terminal prints the written audience (once it settled), row for row as the page has it.
  const expected = after.map((contact) =>
    COLUMNS.map((column) => {
      const value = contact[column as keyof Contact];
      return Array.isArray(value) ? value.join(' ') : String(value ?? '');
    }).filter((cell) => cell !== ''),
  );
  await waitFor(
    'the demo prints the written contacts',
    () => (JSON.stringify(lastPrintedTable()) === JSON.stringify(expected) ? true : undefined),
    30_000,
  );
});

test('Ctrl-C stops the stand-in', async () => {
  // A hang guard: a stand-in that ignores Ctrl-C is killed, and the exit code says so.
  const killer = setTimeout(() => demo.kill('SIGKILL'), 10_000);
  demo.kill('SIGINT');
  const [code, signal] = (await demoExit) as [number | null, string | null];
  clearTimeout(killer);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, demoErr);
});
