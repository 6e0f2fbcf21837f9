/**
 * Attack (privacy): the addresses a customer verifies are theirs, and logs are read by operators,
 * shipped to aggregators and kept for months. At level `info` (the default) and above no verified
 * address may reach a log line, whatever the path: single and bulk verifications, list uploads
 * (JSON and CSV) with a webhook, lists that meet greylisting and rejected mailboxes (the SMTP
 * replies quote the recipient), refused requests whose bodies hold addresses, a Mailchimp run, and
 * a platform that quotes the member's address when it refuses a write (as Mailchimp does: "… is in
 * a compliance state"), in a run's write-back and a watched subscriber's. That last one reached
 * the log: the run's "members not written" line carried the platform's message, and the watch's
 * failure line the error's. The real server runs on the mail world with its logger at `info`;
 * every line it writes is searched for every address used, and for their distinctive local parts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/container/logger.ts';
import type {
  Member,
  MemberPage,
  MemberQuery,
  MemberResult,
  OpenedCredential,
  ProviderSession,
  WriteBackOptions,
  WriteOutcome,
} from '../../src/integrations/ports.ts';
import { ProviderError } from '../../src/integrations/ports.ts';
import { freePort } from '../helpers/free-port.ts';
import { LogCapture } from '../http/log-capture.ts';
import { AcmePlatform } from '../integrations/acme-platform.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';
import { WORLD_DOMAINS } from '../mailworld/mail-world.ts';

/** Every address below, by where it is used; local parts start `qx` so that they are distinctive. */
const SINGLE = ['qxsingle-rejected@accept.test', 'QxSingle-Grey@greylist.test'];
const BULK = [
  ...Object.values(WORLD_DOMAINS).map((domain) => `qxbulk-${domain.split('.')[0]}@${domain}`),
  'qxbulk-deadfirst@deadfirst.test',
  'qxbulk-privatemx@private-mx.test',
  'qxbulk-nodomain@no-such-domain-qx.test',
  'qxbulk-idn@bücher.test',
  '"qxbulk quoted"@accept.test',
  'qxbulk-literal@[127.0.0.1]',
  'qxbulk-typo@gmial.com',
  'alice@accept.test',
];
const JSON_LIST = [
  'qxjson-grey@greylist.test',
  'qxjson-rejected@accept.test',
  'bob@accept.test',
  ...Object.values(WORLD_DOMAINS).map((domain) => `qxjson-${domain.split('.')[0]}@${domain}`),
];
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
const PLATFORM = ['qxacme-run@accept.test', 'QxAcme-Other@catchall.test'];
const WATCHED = 'qxacme-watched@accept.test';
const EVERY = [...SINGLE, ...BULK, ...JSON_LIST, ...CSV_LIST, ...REFUSED, ...MAILCHIMP, ...PLATFORM, WATCHED];

/**
 * Acme Mail (the platform adapter of the integration tests) refusing every write the way Mailchimp
 * refuses some: with a message that quotes the member's address, in a batch's outcome and in a
 * single write alike.
 */
class QuotingPlatform extends AcmePlatform {
  /** Member id → address, as read; jobs → what they were to write. */
  readonly #emails = new Map<string, string>();
  readonly #jobs = new Map<string, readonly MemberResult[]>();

  #refusal(memberId: string): string {
    const email = this.#emails.get(memberId) ?? memberId;
    return `${email} is in a compliance state due to unsubscribe, bounce, or compliance review and cannot be updated.`;
  }

  override session(credential: OpenedCredential): ProviderSession {
    const session = super.session(credential);
    return {
      ...session,
      members: async (audienceId: string, query: MemberQuery): Promise<MemberPage> => {
        const page = await session.members(audienceId, query);
        for (const member of page.members) this.#emails.set(member.id, member.email);
        return page;
      },
      member: async (audienceId: string, email: string): Promise<Member | null> => {
        const member = await session.member(audienceId, email);
        if (member !== null) this.#emails.set(member.id, member.email);
        return member;
      },
      submitWrites: async (
        audienceId: string,
        results: readonly MemberResult[],
        options: WriteBackOptions,
      ) => {
        const id = await session.submitWrites(audienceId, results, options);
        this.#jobs.set(id, results);
        return id;
      },
      writeOutcome: async (jobId: string): Promise<WriteOutcome | null> => {
        if ((await session.writeOutcome(jobId)) === null) return null;
        const results = this.#jobs.get(jobId) ?? [];
        return {
          written: 0,
          errors: results.map((result) => ({
            memberId: result.memberId,
            message: this.#refusal(result.memberId),
          })),
        };
      },
      writeMember: async (_audienceId: string, result: MemberResult) => {
        throw new ProviderError(`Acme: ${this.#refusal(result.memberId)}`, 400);
      },
    };
  }
}

const logs = new LogCapture();
let emulator: MailchimpEmulator;
let lists: ListServer;
let key: string;
let hooks: { url: string; received: string[]; close(): void };
const acme = new QuotingPlatform();

before(async () => {
  emulator = await startMailchimpEmulator();
  emulator.batchStepMs = 1;
  // Known before the start: a watch's hook URL is made from the public URL.
  const port = await freePort();
  lists = await startListServer(
    {
      PORT: String(port),
      MAILVET_PUBLIC_URL: `http://127.0.0.1:${port}`,
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
      MAILVET_RUN_POLL_MS: '100',
      MAILVET_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    {},
    { logger: { level: 'info', stream: logs }, moreProviders: [acme] },
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

  // A platform that quotes the address of each member whose write it refuses: a run, and a watch.
  const { key: acmeKey, list: acmeList } = acme.addAccount(
    'Members',
    PLATFORM.map((email) => ({ email })),
  );
  const acmeIntegration = await lists.call(key, 'POST', '/integrations', {
    provider: 'acme',
    api_key: acmeKey,
  });
  assert.equal(acmeIntegration.status, 201, JSON.stringify(acmeIntegration.body));
  const acmeRun = await lists.call(key, 'POST', `/integrations/${acmeIntegration.body.id}/runs`, {
    audience_id: acmeList.id,
  });
  assert.equal(acmeRun.status, 202, JSON.stringify(acmeRun.body));

  // Everything ends: the lists (after their greylist re-checks), their webhooks, the runs, the watch.
  for (const id of ids) {
    const list = await lists.waitFor(key, id, (view) => view.state === 'completed');
    assert.ok((list.counts as unknown as Record<string, number>).invalid! >= 1, JSON.stringify(list.counts));
  }
  await until('both webhooks', async () => (hooks.received.length >= 2 ? true : undefined));
  const ended = (integrationId: string, runId: string) =>
    until('the run', async () => {
      const run = await lists.call(key, 'GET', `/integrations/${integrationId}/runs/${runId}`);
      return ['completed', 'failed'].includes(run.body.state) ? run.body : undefined;
    });
  await ended(integration.body.id, started.body.id);
  const refused = await ended(acmeIntegration.body.id, acmeRun.body.id);
  assert.equal(refused.counts.write_errors, PLATFORM.length, JSON.stringify(refused));
  // A contact added since, verified through a watch: its single write is refused too.
  const watch = await lists.call(key, 'POST', `/integrations/${acmeIntegration.body.id}/watches`, {
    audience_id: acmeList.id,
  });
  assert.equal(watch.status, 201, JSON.stringify(watch.body));
  acme.addContact(acmeList, WATCHED);
  const hookUrl = [...acmeList.webhooks.values()][0]!;
  const event = await fetch(hookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'contact.created', list: acmeList.id, contact: { email: WATCHED } }),
  });
  assert.equal(event.status, 200);
  await until('the watched subscriber', async () =>
    logs.entries().some((entry) => entry.msg === 'a watch event could not be acted on') ? true : undefined,
  );

  // The paths were logged: requests, the failed first webhook attempts, the refused writes.
  const entries = logs.entries();
  assert.ok(entries.some((entry) => entry.msg === 'request completed'));
  assert.ok(entries.some((entry) => entry.msg === 'webhook delivery failed'));
  assert.ok(entries.some((entry) => entry.msg === 'run: members not written'));
  const text = logs.text.toLowerCase();
  for (const email of EVERY) {
    assert.ok(!text.includes(email.toLowerCase()), `${email} is in a log line`);
    const local = email.slice(0, email.indexOf('@')).toLowerCase();
    if (local.startsWith('qx'))
      assert.ok(!text.includes(local), `the local part of ${email} is in a log line`);
  }
});

test('the masking itself: errors (message, causes, own fields), messages and values; debug lines kept whole', () => {
  class DatabaseError extends Error {
    detail = 'Key (address_key)=(qxdb-row@accept.test) already exists.';
  }
  const logs = new LogCapture();
  const log = createLogger({ level: 'info', stream: logs });
  const cause = new Error('550 5.1.1 <QxCause@Accept.Test>: Recipient address rejected');
  const error = new DatabaseError('insert of qxdb-message@accept.test failed', { cause });
  const fields = {
    err: error,
    reply: '<"qx quoted"@accept.test> refused',
    nested: [{ to: 'qx@bücher.test' }],
  };
  log.warn(fields, 'saving %s failed', 'qxarg@[127.0.0.1]');
  log.error(new DatabaseError('no row for qxalone@accept.test'));
  const frame = 'at main (/app/node_modules/@fastify/busboy/lib/main.js:10:3)';
  log.info({ route: '/api/v1/verify', statusCode: 200, frame }, 'request completed');

  // biome-ignore lint/suspicious/noExplicitAny: log lines as JSON, asserted on field by field
  const [warned, alone, plain] = logs.entries() as Array<Record<string, any>>;
  assert.doesNotMatch(logs.text, /qx/i, logs.text);
  assert.equal(warned!.msg, 'saving [address] failed');
  assert.equal(warned!.err.type, 'DatabaseError');
  assert.equal(
    warned!.err.message,
    'insert of [address] failed: 550 5.1.1 <[address]>: Recipient address rejected',
  );
  assert.equal(warned!.err.detail, 'Key (address_key)=([address]) already exists.');
  assert.match(
    warned!.err.stack,
    /^Error: insert of \[address\] failed\n\s+at .*caused by: Error: 550 5.1.1 <\[address\]>/s,
  );
  assert.equal(warned!.reply, '<[address]> refused');
  assert.deepEqual(warned!.nested, [{ to: '[address]' }]);
  assert.equal(alone!.msg, 'no row for [address]');
  assert.equal(alone!.err.type, 'DatabaseError');
  assert.deepEqual(
    { route: plain!.route, statusCode: plain!.statusCode, frame: plain!.frame, msg: plain!.msg },
    { route: '/api/v1/verify', statusCode: 200, frame, msg: 'request completed' },
  );
  // What the caller logged is left as it was.
  assert.equal(fields.reply, '<"qx quoted"@accept.test> refused');
  assert.equal(error.message, 'insert of qxdb-message@accept.test failed');

  const debugLogs = new LogCapture();
  const debug = createLogger({ level: 'debug', stream: debugLogs });
  debug.debug({ email: 'qxdebug@accept.test' }, 'verify');
  debug.info({ email: 'qxinfo@accept.test' }, 'verify');
  assert.match(debugLogs.text, /qxdebug@accept\.test/, 'debug lines keep the address');
  assert.doesNotMatch(debugLogs.text, /qxinfo/, 'info lines of a debug logger are masked');
});
