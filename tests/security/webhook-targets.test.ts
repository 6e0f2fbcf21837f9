/**
 * Attack: a list's `webhook_url` at a loopback or private address (an IP literal in any spelling,
 * or a name that resolves there) was accepted with 202 and refused only when the list ended and
 * the webhook was sent: a caller learnt nothing at once, and the server held a list whose every
 * delivery would be refused. It is now a 422 `validation_failed` on `webhook_url`, for JSON and
 * CSV (query, form field before or after the file), with nothing of the upload stored, unless
 * private receivers are allowed. A name that does not resolve now is accepted: deliveries check
 * it again each time.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ResolvingWebhookTargetCheck } from '../../src/adapters/webhooks/target-check.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

/** URLs whose host is, or resolves (through the system resolver) only to, a refused address. */
const REFUSED = [
  'http://127.0.0.1:8080/hooks',
  'http://2130706433/hooks', // 127.0.0.1 once the URL parser reads it
  'http://10.0.0.5/hooks',
  'http://192.168.1.1/hooks',
  'http://169.254.169.254/latest/meta-data/',
  'http://0.0.0.0:80/hooks',
  'http://[::1]:8080/hooks',
  'http://[::ffff:127.0.0.1]/hooks',
  'http://[::ffff:10.0.0.5]/hooks',
  'http://[fd00::1]/hooks',
  'https://localhost/hooks',
  'http://LOCALHOST:9/hooks',
];

let lists: ListServer;
let key: string;
let db: Database.Database;

before(async () => {
  lists = await startListServer({ MAILVET_WEBHOOK_ALLOW_PRIVATE: 'false', MAILVET_SMTP_PROBE: 'false' });
  key = await lists.key();
  db = new Database(join(lists.dataDir, 'mailvet.db'), { readonly: true });
});
after(async () => {
  db?.close();
  await lists?.close();
});

/** Every list and row the store holds, hidden uploads included. */
function stored(): { lists: number; rows: number } {
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    lists: count('select count(*) as n from lists'),
    rows: count('select count(*) as n from list_rows'),
  };
}

async function expectRefused(response: Response, url: string): Promise<void> {
  const body = (await response.json()) as { code: string; errors: Array<{ field: string; message: string }> };
  assert.equal(response.status, 422, `${url}: ${JSON.stringify(body)}`);
  assert.equal(body.code, 'validation_failed');
  assert.equal(body.errors.length, 1);
  assert.equal(body.errors[0]?.field, 'webhook_url');
  assert.match(body.errors[0]?.message ?? '', /^Must point at a public address, not /);
}

function postJson(body: unknown): Promise<Response> {
  return lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('a webhook at a loopback or private address is refused when the list is made', () => {
  test('JSON, the URL before or after the emails: 422 on webhook_url, nothing stored', async () => {
    const before = stored();
    for (const url of REFUSED) {
      await expectRefused(await postJson({ webhook_url: url, emails: ['alice@accept.test'] }), url);
      await expectRefused(
        await postJson({ emails: ['alice@accept.test', 'bob@accept.test'], webhook_url: url }),
        url,
      );
    }
    assert.deepEqual(stored(), before);
  });

  test('CSV, the URL in the query: 422 before the body is stored', async () => {
    const before = stored();
    for (const url of REFUSED) {
      const response = await lists.api(key, `/lists?webhook_url=${encodeURIComponent(url)}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: 'email\nalice@accept.test\nbob@accept.test\n',
      });
      await expectRefused(response, url);
    }
    assert.deepEqual(stored(), before);
  });

  test('multipart, the URL a field before or after the file: 422, nothing stored', async () => {
    const before = stored();
    for (const url of ['http://localhost:3000/hooks', 'http://[::ffff:127.0.0.1]/hooks']) {
      for (const fieldFirst of [true, false]) {
        const form = new FormData();
        if (fieldFirst) form.set('webhook_url', url);
        form.set('file', new Blob(['email\nalice@accept.test\n'], { type: 'text/csv' }), 'list.csv');
        if (!fieldFirst) form.set('webhook_url', url);
        await expectRefused(await lists.api(key, '/lists', { method: 'POST', body: form }), url);
      }
    }
    assert.deepEqual(stored(), before);
  });

  test('a name that does not resolve now is accepted: its deliveries check it again', async () => {
    // `.invalid` never resolves (RFC 6761), with or without a network.
    const response = await postJson({ emails: ['alice@accept.test'], webhook_url: 'http://hooks.invalid/x' });
    const list = (await response.json()) as { id: string; webhook_url: string };
    assert.equal(response.status, 202, JSON.stringify(list));
    assert.equal(list.webhook_url, 'http://hooks.invalid/x');
    assert.equal((await lists.api(key, `/lists/${list.id}`, { method: 'DELETE' })).status, 204);
  });
});

describe('the check itself (ResolvingWebhookTargetCheck)', () => {
  const answering =
    (addresses: Array<{ address: string; family: number }>, asked: string[] = []) =>
    async (host: string) => {
      asked.push(host);
      return addresses;
    };

  test('a name resolving only to private or loopback addresses is refused, named with what it is', async () => {
    const check = new ResolvingWebhookTargetCheck({
      allowPrivate: false,
      resolve: answering([
        { address: '10.1.2.3', family: 4 },
        { address: '::1', family: 6 },
      ]),
    });
    assert.equal(
      await check.refusal('https://hooks.internal.example/x'),
      'private, loopback (hooks.internal.example)',
    );
  });

  test('a name with a public address is accepted, as the sender would connect to that one', async () => {
    const check = new ResolvingWebhookTargetCheck({
      allowPrivate: false,
      resolve: answering([
        { address: '127.0.0.1', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ]),
    });
    assert.equal(await check.refusal('https://hooks.example.com/x'), null);
  });

  test('a literal is judged without a lookup', async () => {
    const asked: string[] = [];
    const check = new ResolvingWebhookTargetCheck({ allowPrivate: false, resolve: answering([], asked) });
    assert.equal(await check.refusal('http://[::ffff:127.0.0.1]/x'), 'ipv4_mapped:loopback (::ffff:7f00:1)');
    assert.equal(await check.refusal('http://8.8.8.8/x'), null);
    assert.deepEqual(asked, []);
  });

  test('a name that fails or does not answer in time is accepted', async () => {
    const failing = new ResolvingWebhookTargetCheck({
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    assert.equal(await failing.refusal('https://not-yet.example.com/x'), null);
    const silent = new ResolvingWebhookTargetCheck({
      allowPrivate: false,
      timeoutMs: 50,
      resolve: () => new Promise(() => {}),
    });
    assert.equal(await silent.refusal('https://slow.example.com/x'), null);
  });

  test('with private receivers allowed nothing is looked up or refused', async () => {
    const asked: string[] = [];
    const check = new ResolvingWebhookTargetCheck({
      allowPrivate: true,
      resolve: answering([{ address: '127.0.0.1', family: 4 }], asked),
    });
    assert.equal(await check.refusal('http://localhost/x'), null);
    assert.equal(await check.refusal('http://127.0.0.1/x'), null);
    assert.deepEqual(asked, []);
  });

  test('the system resolver (dns.lookup, /etc/hosts) is the default: localhost is loopback', async () => {
    const check = new ResolvingWebhookTargetCheck({ allowPrivate: false });
    assert.match((await check.refusal('http://localhost:8080/x')) ?? '', /^loopback\b.*\(localhost\)$/);
  });
});
