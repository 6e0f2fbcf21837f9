/**
 * Attack (privacy): the addresses a customer verifies are theirs, and logs are read by operators,
 * shipped to aggregators and kept for months. At level `info` (the default) and above no verified
 * address may reach a log line, whatever the path: single and bulk verifications, list uploads
 * (JSON and CSV) with a webhook, lists that meet greylisting and a rejected mailbox (the SMTP
 * replies quote the recipient), refused requests whose bodies hold addresses, and a Mailchimp run.
 * The real server runs on the mail world with its logger at `info`; every line it writes is
 * searched for every address used, and for their distinctive local parts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { LogCapture } from '../http/log-capture.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';

/** Every address below, by where it is used; local parts start `qx` so that they are distinctive. */
const SINGLE = ['qxsingle-rejected@accept.test', 'QxSingle-Grey@greylist.test'];
const BULK = [
  'qxbulk-one@accept.test',
  'qxbulk-two@catchall.test',
  'qxbulk-three@full.test',
  'qxbulk-four@disabled.test',
  'qxbulk-five@no-such-domain-qx.test',
  'alice@accept.test',
];
const JSON_LIST = ['qxjson-grey@greylist.test', 'qxjson-rejected@accept.test', 'bob@accept.test'];
const CSV_LIST = ['qxcsv-grey@greylist.test', 'qxcsv-rejected@accept.test', 'carol@accept.test'];
const REFUSED = [
  'qxbad-extra@accept.test',
  'qxbad-broken@accept.test',
  'qxbad-bulk@accept.test',
  'qxbad-entry@accept.test',
  'qxbad-csv@accept.test',
  'qxbad-search@accept.test',
];
const MAILCHIMP = ['qxmc-rejected@accept.test', 'qxmc-any@catchall.test', 'dave@accept.test'];
const EVERY = [...SINGLE, ...BULK, ...JSON_LIST, ...CSV_LIST, ...REFUSED, ...MAILCHIMP];

const logs = new LogCapture();
let emulator: MailchimpEmulator;
let lists: ListServer;
let key: string;
let hooks: { url: string; received: string[]; close(): void };

before(async () => {
  emulator = await startMailchimpEmulator();
  emulator.batchStepMs = 1;
  lists = await startListServer(
    {
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
      MAILVET_RUN_POLL_MS: '100',
      MAILVET_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    {},
    { logger: { level: 'info', stream: logs } },
  );
  key = await lists.key({ quota: 100_000 });
  hooks = await receiver();
});
after(async () => {
  hooks?.close();
  await lists?.close();
  await emulator?.close();
});

/** A webhook receiver on loopback: its first attempt of each event fails, so a retry is logged too. */
async function receiver(): Promise<{ url: string; received: string[]; close(): void }> {
  const received: string[] = [];
  const seen = new Set<string>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const delivery = String(request.headers['mailvet-delivery']);
      if (!seen.has(delivery)) {
        seen.add(delivery);
        // An unhelpful receiver that echoes what it was sent: its excerpt lands in the failure reason.
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`not now: ${body}`);
        return;
      }
      received.push(body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const post = (path: string, body: string | FormData, type?: string) =>
  lists.api(key, path, {
    method: 'POST',
    ...(type !== undefined && { headers: { 'content-type': type } }),
    body,
  });

/** Polls until `check` gives a value (a hang guard, not a timing assertion). */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('no verified address reaches a log line at info, on any path', async () => {
  // Single and bulk verifications.
  for (const email of SINGLE) {
    const response = await post('/verify', JSON.stringify({ email }), 'application/json');
    assert.equal(response.status, 200, await response.text());
  }
  const bulk = await post('/verify/bulk', JSON.stringify({ emails: BULK }), 'application/json');
  assert.equal(bulk.status, 200, await bulk.text());

  // Lists with a webhook: JSON, and CSV as a form (the dashboard's upload).
  const json = await post(
    '/lists',
    JSON.stringify({ name: 'Leak check', emails: JSON_LIST, webhook_url: hooks.url }),
    'application/json',
  );
  assert.equal(json.status, 202, await json.clone().text());
  const form = new FormData();
  form.set('webhook_url', hooks.url);
  form.set('file', new Blob([`email,name\n${CSV_LIST.map((e) => `${e},Someone`).join('\n')}\n`]), 'x.csv');
  const csv = await post('/lists', form);
  assert.equal(csv.status, 202, await csv.clone().text());
  const ids = [((await json.json()) as { id: string }).id, ((await csv.json()) as { id: string }).id];

  // Refused requests whose bodies hold addresses.
  const refusals: Array<[string, string, string]> = [
    ['/verify', JSON.stringify({ email: [REFUSED[0]] }), 'application/json'],
    ['/verify', `{"email": "${REFUSED[1]}"`, 'application/json'],
    ['/verify/bulk', JSON.stringify({ emails: [REFUSED[2], 42] }), 'application/json'],
    ['/lists', JSON.stringify({ emails: [REFUSED[3], 42] }), 'application/json'],
    ['/lists', `email\n"${REFUSED[4]},x\n`, 'text/csv'],
  ];
  for (const [path, body, type] of refusals) {
    const response = await post(path, body, type);
    const text = await response.text();
    assert.ok(response.status >= 400 && response.status < 500, `${path} ${body}: ${response.status} ${text}`);
  }
  const search = await lists.api(key, `/lists/${ids[0]}/rows?q=${encodeURIComponent(REFUSED[5]!)}`);
  assert.ok(search.status < 500, await search.text());

  // A Mailchimp run: members read, verified as a list, results written back.
  const account = emulator.addAccount({ name: 'Shop' });
  const audience = emulator.addAudience(account, { name: 'Customers' });
  for (const email of MAILCHIMP) emulator.addMember(audience, { email, status: 'subscribed' });
  const integration = await lists.call(key, 'POST', '/integrations', {
    provider: 'mailchimp',
    api_key: account.apiKey,
  });
  assert.equal(integration.status, 201, JSON.stringify(integration.body));
  const started = await lists.call(key, 'POST', `/integrations/${integration.body.id}/runs`, {
    audience_id: audience.id,
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));

  // Everything ends: the lists (after their greylist re-checks), their webhooks, the run.
  for (const id of ids) {
    const list = await lists.waitFor(key, id, (view) => view.state === 'completed');
    assert.ok((list.counts as unknown as Record<string, number>).invalid! >= 1, JSON.stringify(list.counts));
  }
  await until('both webhooks', async () => (hooks.received.length >= 2 ? true : undefined));
  await until('the run', async () => {
    const run = await lists.call(key, 'GET', `/integrations/${integration.body.id}/runs/${started.body.id}`);
    return ['completed', 'failed'].includes(run.body.state) ? run.body : undefined;
  });

  // The paths were logged: requests, the failed first webhook attempts.
  const entries = logs.entries();
  assert.ok(entries.some((entry) => entry.msg === 'request completed'));
  assert.ok(entries.some((entry) => entry.msg === 'webhook delivery failed'));
  (await import('node:fs')).writeFileSync('/tmp/item8-logs.txt', logs.text);
  const text = logs.text.toLowerCase();
  for (const email of EVERY) {
    assert.ok(!text.includes(email.toLowerCase()), `${email} is in a log line`);
    const local = email.slice(0, email.indexOf('@')).toLowerCase();
    if (local.startsWith('qx'))
      assert.ok(!text.includes(local), `the local part of ${email} is in a log line`);
  }
});
