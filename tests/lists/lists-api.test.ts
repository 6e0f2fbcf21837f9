/**
 * List jobs end to end through the real server on the mail world: JSON and CSV uploads,
 * duplicates verified and charged once, greylisted addresses re-checked before completion, results
 * in upload order (CSV keeps the uploaded columns), the signed completion webhook, and usage.
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { ListView } from '../../src/lists/list-view.ts';
import { monthOf } from '../../src/usage/months.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { createJsonList, type ListServer, startListServer } from './list-server.ts';

let lists: ListServer;
let key: string;

interface Hook {
  headers: IncomingMessage['headers'];
  body: string;
}
let hookServer: Server;
let hookUrl: string;
const hooks: Hook[] = [];
let failNextHooks = 0;

before(async () => {
  lists = await startListServer();
  key = await lists.key();
  hookServer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (failNextHooks > 0) {
        failNextHooks -= 1;
        response.writeHead(503).end();
        return;
      }
      hooks.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  hookServer.listen(0, '127.0.0.1');
  await once(hookServer, 'listening');
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hooks/mailvet`;
});

after(async () => {
  hookServer?.close();
  await lists?.close();
});

const completed = (list: ListView) => list.state === 'completed';

describe('a JSON list', () => {
  const d = () => lists.world.domains;
  let created: ListView & { webhook_secret?: string };
  let done: ListView;
  let emails: string[];

  before(async () => {
    emails = [
      `alice@${d()['accept-known']}`,
      `nobody@${d()['accept-known']}`,
      `bob@${d().greylist}`,
      ` alice@${d()['accept-known']}`, // a duplicate once trimmed
      'not an address',
      `carol@${d()['catch-all']}`,
      `alice@${d()['accept-known'].toUpperCase()}`, // the same address: domains are case-insensitive
      `dave@${d()['mailbox-full']}`,
    ];
    failNextHooks = 2; // the receiver fails twice: the webhook must be retried
    created = await createJsonList(lists, key, { name: 'Spring campaign', emails, webhook_url: hookUrl });
    done = await lists.waitFor(key, created.id, completed);
  });

  test('202 answers with the queued list and a webhook secret', () => {
    assert.match(created.id, /^lst_[0-9a-f]{32}$/);
    assert.equal(created.name, 'Spring campaign');
    assert.ok(['queued', 'running', 'completed'].includes(created.state));
    assert.equal(created.counts.total, 8);
    assert.equal(created.counts.unique, 6);
    assert.match(created.webhook_secret ?? '', /^whsec_/);
    assert.equal(created.links.results, `/api/v1/lists/${created.id}/results`);
  });

  test('completes with every row counted once, per status', () => {
    assert.equal(done.counts.total, 8);
    assert.equal(done.counts.processed, 8);
    assert.equal(done.progress, 1);
    // alice ×3 and the greylisted bob (accepted on the re-check) are VALID; carol is catch-all,
    // dave's mailbox is full (both PROBABLY_VALID); nobody is rejected; one row is not an address.
    assert.equal(done.counts.valid, 4);
    assert.equal(done.counts.probably_valid, 2);
    assert.equal(done.counts.invalid, 1);
    assert.equal(done.counts.invalid_syntax, 1);
    assert.ok(done.started_at !== null && done.finished_at !== null);
    assert.equal(done.message, null);
  });

  test('the greylisted address was checked again and accepted, before completion', async () => {
    const response = await lists.api(key, `/lists/${created.id}/results?format=json`);
    const rows = (await response.json()) as Array<{ row: number; email: string; result: { reason: string } }>;
    const bob = rows.find((row) => row.email.startsWith('bob@'));
    assert.equal(bob?.result.reason, 'mailbox_confirmed');
    // Three SMTP transactions reached the greylisting host for bob at most (first try + re-checks).
    assert.ok(lists.world.hosts.greylist.stats.connections >= 2);
  });

  test('JSON results: one per row, in upload order, duplicates repeating their address', async () => {
    const response = await lists.api(key, `/lists/${created.id}/results?format=json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const rows = (await response.json()) as Array<{
      row: number;
      email: string;
      result: { status: string; email: string } | null;
    }>;
    assert.deepEqual(
      rows.map((row) => row.row),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.deepEqual(
      rows.map((row) => row.email),
      emails.map((email) => email.trim()),
    );
    for (const row of rows) assert.equal(row.result?.email, row.email);
    assert.equal(rows[0]?.result?.status, 'VALID');
    assert.equal(rows[3]?.result?.status, 'VALID');
    assert.equal(rows[6]?.result?.status, 'VALID');
    assert.equal(rows[1]?.result?.status, 'INVALID');
    assert.equal(rows[4]?.result?.status, 'INVALID_SYNTAX');
  });

  test('CSV results with a status filter', async () => {
    const response = await lists.api(key, `/lists/${created.id}/results?format=csv&status=valid`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/csv/);
    const [header, ...rows] = parse(await response.text()) as string[][];
    assert.equal(header?.[0], 'email');
    assert.ok(header?.includes('mailvet_status'));
    assert.equal(rows.length, 4);
    const status = header!.indexOf('mailvet_status');
    for (const row of rows) assert.equal(row[status], 'VALID');
  });

  test('quota: each unique address charged once', async () => {
    const usage = await usageOfKey(
      lists.server.store,
      (await lists.server.store.listApiKeys()).find((record) => record.name === 'list test')!.id,
      monthOf(new Date()),
    );
    assert.equal(usage.verifications, 6);
  });

  test('the completion webhook arrives signed, after the receiver failed twice', async () => {
    const deadline = Date.now() + 30_000;
    while (hooks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(hooks.length, 1);
    const hook = hooks[0]!;
    const signature = String(hook.headers['mailvet-signature']);
    assert.ok(verifyWebhook(created.webhook_secret!, hook.body, signature));
    assert.ok(
      !verifyWebhook(created.webhook_secret!, hook.body.replace('completed', 'c0mpleted'), signature),
    );
    const event = JSON.parse(hook.body) as { event: string; id: string; data: { list: ListView } };
    assert.equal(event.event, 'list.completed');
    assert.equal(hook.headers['mailvet-delivery'], event.id);
    assert.equal(event.data.list.id, created.id);
    assert.equal(event.data.list.state, 'completed');
    assert.equal(event.data.list.counts.processed, 8);
  });
});

describe('a CSV list', () => {
  test('raw text/csv: BOM, CRLF, quoted cells; the other columns come back beside the results', async () => {
    const accept = lists.world.domains['accept-known'];
    const csv = `\uFEFFname,Email,notes\r\n"Doe, Jane",alice@${accept},"said ""hi""\nthen left"\r\n\r\nBob,nobody@${accept},\r\n`;
    const response = await lists.api(key, '/lists?name=CRM%20export', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(response.status, 202, await response.clone().text());
    const created = (await response.json()) as ListView;
    assert.equal(created.name, 'CRM export');
    assert.equal(created.source, 'csv');
    assert.equal(created.counts.total, 2);
    await lists.waitFor(key, created.id, completed);
    const results = await lists.api(key, `/lists/${created.id}/results`);
    const [header, ...rows] = parse(await results.text()) as string[][];
    assert.deepEqual(header?.slice(0, 3), ['name', 'Email', 'notes']);
    assert.deepEqual(rows[0]?.slice(0, 3), ['Doe, Jane', `alice@${accept}`, 'said "hi"\nthen left']);
    assert.equal(rows[0]?.[header!.indexOf('mailvet_status')], 'VALID');
    assert.deepEqual(rows[1]?.slice(0, 3), ['Bob', `nobody@${accept}`, '']);
    assert.equal(rows[1]?.[header!.indexOf('mailvet_status')], 'INVALID');
  });

  test('multipart field `file`, with name and column fields before it', async () => {
    const accept = lists.world.domains['accept-known'];
    const form = new FormData();
    form.append('name', 'From the dashboard');
    form.append('column', '2');
    form.append('file', new Blob([`id,contact\n1,bob@${accept}\n2,carol@${accept}\n`]), 'list.csv');
    const response = await lists.api(key, '/lists', { method: 'POST', body: form });
    assert.equal(response.status, 202, await response.clone().text());
    const created = (await response.json()) as ListView;
    assert.equal(created.name, 'From the dashboard');
    assert.equal(created.counts.total, 2);
    const done = await lists.waitFor(key, created.id, completed);
    assert.equal(done.counts.valid, 2);
  });
  test('multipart fields after the file still count (a form that puts `name` last); a bad late one removes the list', async () => {
    const accept = lists.world.domains['accept-known'];
    const form = new FormData();
    form.append('file', new Blob([`email\nbob@${accept}\n`]), 'list.csv');
    form.append('name', 'Named after the file');
    const response = await lists.api(key, '/lists', { method: 'POST', body: form });
    assert.equal(response.status, 202, await response.clone().text());
    assert.equal(((await response.json()) as ListView).name, 'Named after the file');

    const listIds = async () =>
      ((await (await lists.api(key, '/lists?limit=100')).json()) as { lists: ListView[] }).lists.map(
        (list) => list.id,
      );
    const before = await listIds();
    const bad = new FormData();
    bad.append('file', new Blob([`email\nbob@${accept}\n`]), 'list.csv');
    bad.append('webhook_url', 'not a url');
    const refused = await lists.api(key, '/lists', { method: 'POST', body: bad });
    assert.equal(refused.status, 422, await refused.clone().text());
    assert.equal(
      ((await refused.json()) as { errors: Array<{ field: string }> }).errors[0]?.field,
      'webhook_url',
    );
    assert.deepEqual(await listIds(), before, 'nothing kept of the refused upload');
  });
});

describe('reading lists', () => {
  test('GET /lists pages newest first; another account sees none of them', async () => {
    const accept = lists.world.domains['accept-known'];
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(
        (await createJsonList(lists, key, { name: `page ${i}`, emails: [`user${i + 1}@${accept}`] })).id,
      );
    }
    const first = (await (await lists.api(key, '/lists?limit=2')).json()) as {
      lists: ListView[];
      next_cursor: string;
    };
    assert.deepEqual(
      first.lists.map((list) => list.id),
      [ids[2], ids[1]],
    );
    assert.ok(first.next_cursor);
    const second = (await (await lists.api(key, `/lists?limit=2&cursor=${first.next_cursor}`)).json()) as {
      lists: ListView[];
    };
    assert.equal(second.lists[0]?.id, ids[0]);

    const other = await lists.otherAccountKey();
    const theirs = (await (await lists.api(other, '/lists')).json()) as { lists: ListView[] };
    assert.deepEqual(theirs.lists, []);
    const peek = await lists.api(other, `/lists/${ids[0]}`);
    assert.equal(peek.status, 404);
    assert.equal(((await peek.json()) as { code: string }).code, 'not_found');
    for (const action of ['pause', 'resume', 'cancel']) {
      assert.equal((await lists.api(other, `/lists/${ids[0]}/${action}`, { method: 'POST' })).status, 404);
    }
    assert.equal((await lists.api(other, `/lists/${ids[0]}`, { method: 'DELETE' })).status, 404);
    assert.equal((await lists.api(other, `/lists/${ids[0]}/results`)).status, 404);
  });

  test('GET /lists/{id}/rows pages the rows, filters by status, searches addresses; only for the owner', async () => {
    const accept = lists.world.domains['accept-known'];
    // 30 known mailboxes, 5 unknown ones, and a row that repeats one: 36 rows in upload order.
    const emails = [
      ...Array.from({ length: 30 }, (_, i) => `user${i + 1}@${accept}`),
      ...Array.from({ length: 5 }, (_, i) => `Ghost${i + 1}@${accept.toUpperCase()}`),
      `user7@${accept}`,
    ];
    const { id } = await createJsonList(lists, key, { name: 'paged', emails });
    await lists.waitFor(key, id, completed);
    interface RowPage {
      rows: Array<{ row: number; email: string; result: { status: string } | null }>;
      total: number;
      offset: number;
      limit: number;
    }
    const page = async (query: string) => {
      const { status, body } = await lists.call(key, 'GET', `/lists/${id}/rows${query}`);
      assert.equal(status, 200, JSON.stringify(body));
      return body as RowPage;
    };

    const first = await page('');
    assert.deepEqual([first.total, first.offset, first.limit, first.rows.length], [36, 0, 25, 25]);
    assert.deepEqual(
      first.rows.slice(0, 2).map((row) => [row.row, row.email, row.result?.status]),
      [
        [1, `user1@${accept}`, 'VALID'],
        [2, `user2@${accept}`, 'VALID'],
      ],
    );
    const second = await page('?offset=25');
    assert.deepEqual(
      second.rows.map((row) => row.row),
      Array.from({ length: 11 }, (_, i) => 26 + i),
    );
    assert.equal(second.rows.at(-1)?.email, `user7@${accept}`);

    const invalid = await page('?status=INVALID&limit=2&offset=1');
    assert.equal(invalid.total, 5);
    assert.deepEqual(
      invalid.rows.map((row) => [row.row, row.result?.status]),
      [
        [32, 'INVALID'],
        [33, 'INVALID'],
      ],
    );
    // The search is in the address, letters compared without case.
    const ghosts = await page(`?q=${encodeURIComponent(`ghost3@${accept}`)}`);
    assert.deepEqual(
      ghosts.rows.map((row) => row.email),
      [`Ghost3@${accept.toUpperCase()}`],
    );
    assert.equal(ghosts.total, 1);
    const sevens = await page('?q=USER7%40&status=VALID,INVALID');
    assert.deepEqual(
      sevens.rows.map((row) => row.row),
      [7, 36],
    );
    assert.equal(sevens.total, 2);
    // `%` and `_` are text, not wildcards.
    assert.equal((await page('?q=%25')).total, 0);
    assert.equal((await page('?q=user_')).total, 0);

    for (const query of ['limit=0', 'limit=101', 'limit=x', 'offset=-1', 'offset=99999999', 'status=GOOD']) {
      const { status, body } = await lists.call(key, 'GET', `/lists/${id}/rows?${query}`);
      assert.equal(status, 422, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.code, 'validation_failed', query);
    }
    const other = await lists.otherAccountKey();
    const theirs = await lists.call(other, 'GET', `/lists/${id}/rows`);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, 'not_found');
  });

  test('a bad cursor or limit is a 422', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=nonsense']) {
      const response = await lists.api(key, `/lists?${query}`);
      assert.equal(response.status, 422, query);
    }
  });
});

test('the OpenAPI document lists every list route with its responses', async () => {
  const response = await fetch(`${lists.url}/api/v1/openapi.json`);
  // biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
  const doc = (await response.json()) as any;
  assert.ok(doc.paths['/api/v1/lists'].post.responses['202']);
  assert.deepEqual(Object.keys(doc.paths['/api/v1/lists'].post.requestBody.content), [
    'application/json',
    'text/csv',
    'multipart/form-data',
  ]);
  assert.ok(doc.paths['/api/v1/lists'].get.responses['200']);
  assert.ok(doc.paths['/api/v1/lists/{id}'].get.responses['404']);
  assert.ok(doc.paths['/api/v1/lists/{id}'].delete.responses['204']);
  for (const action of ['pause', 'resume', 'cancel']) {
    assert.ok(doc.paths[`/api/v1/lists/{id}/${action}`].post.responses['409'], action);
  }
  assert.ok(doc.paths['/api/v1/lists/{id}/results'].get.responses['200']);
  assert.ok(doc.components.schemas.List.properties.counts);
});
