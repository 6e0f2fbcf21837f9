/**
 * Hostile and malformed uploads to POST /api/v1/lists: every one is a 4xx with the
 * documented error body, never a 5xx, and leaves no list behind. Plus the CSV edge cases that must
 * work: a row with 60 KB of notes (a 10 MB line is refused), and a list that is only a header (refused).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ListView } from '../../src/lists/list-view.ts';
import { type ListServer, startListServer } from './list-server.ts';

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer({ MAILVET_SMTP_PROBE: 'false' });
  key = await lists.key({ rate: 100_000 });
});
after(() => lists?.close());

interface Case {
  name: string;
  contentType?: string;
  body: string | Uint8Array;
  query?: string;
  status: number;
  field?: string;
}

const json = 'application/json';
const csv = 'text/csv';

const CASES: Case[] = [
  { name: 'no content type', body: '{"emails":["a@b.test"]}', status: 400 },
  { name: 'wrong content type', contentType: 'application/xml', body: '<emails/>', status: 400 },
  { name: 'truncated JSON', contentType: json, body: '{"emails":["a@b.test"', status: 400 },
  { name: 'not JSON', contentType: json, body: 'emails=a@b.test', status: 400 },
  { name: 'a JSON array', contentType: json, body: '["a@b.test"]', status: 400 },
  { name: 'a JSON string', contentType: json, body: '"a@b.test"', status: 400 },
  { name: 'JSON null', contentType: json, body: 'null', status: 400 },
  { name: 'empty JSON body', contentType: json, body: '', status: 400 },
  { name: 'emails missing', contentType: json, body: '{"name":"x"}', status: 422, field: 'emails' },
  {
    name: 'emails not an array',
    contentType: json,
    body: '{"emails":"a@b.test"}',
    status: 422,
    field: 'emails',
  },
  { name: 'emails empty', contentType: json, body: '{"emails":[]}', status: 422, field: 'emails' },
  {
    name: 'an entry not a string',
    contentType: json,
    body: '{"emails":["a@b.test",3]}',
    status: 422,
    field: 'emails[1]',
  },
  {
    name: 'an empty entry',
    contentType: json,
    body: '{"emails":["a@b.test",""]}',
    status: 422,
    field: 'emails[1]',
  },
  {
    name: 'a nested entry',
    contentType: json,
    body: '{"emails":[["a@b.test"]]}',
    status: 422,
    field: 'emails[0]',
  },
  {
    name: 'an entry over 1024 characters',
    contentType: json,
    body: `{"emails":["${'a'.repeat(1100)}@b.test"]}`,
    status: 422,
    field: 'emails[0]',
  },
  {
    name: 'name not a string',
    contentType: json,
    body: '{"name":7,"emails":["a@b.test"]}',
    status: 422,
    field: 'name',
  },
  {
    name: 'name after the emails, wrong',
    contentType: json,
    body: '{"emails":["a@b.test"],"name":""}',
    status: 422,
    field: 'name',
  },
  {
    name: 'webhook not a URL',
    contentType: json,
    body: '{"emails":["a@b.test"],"webhook_url":"not a url"}',
    status: 422,
    field: 'webhook_url',
  },
  {
    name: 'webhook another scheme',
    contentType: json,
    body: '{"emails":["a@b.test"],"webhook_url":"ftp://x.test/"}',
    status: 422,
    field: 'webhook_url',
  },
  {
    name: 'deep nesting',
    contentType: json,
    body: `{"emails":${'['.repeat(100_000)}`,
    status: 422,
    field: 'emails[0]',
  },
  {
    name: 'deep nesting elsewhere',
    contentType: json,
    body: `{"x":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)},"emails":["a@b.test"]}`,
    status: 400,
  },
  {
    name: 'a lone surrogate escape',
    contentType: json,
    body: '{"emails":["\\ud800@b.test"]}',
    status: 422,
    field: 'emails[0]',
  },
  {
    name: 'invalid UTF-8 in JSON',
    contentType: json,
    body: Buffer.from([0x7b, 0x22, 0x65, 0xff, 0xfe, 0x22, 0x7d]),
    status: 400,
  },
  {
    name: 'invalid UTF-8 in CSV',
    contentType: csv,
    body: Buffer.concat([
      Buffer.from('email\na@b.test\n'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('@b.test\n'),
    ]),
    status: 400,
  },
  {
    name: 'CSV with no email column',
    contentType: csv,
    body: 'name,phone\nJane,123\n',
    status: 422,
    field: 'column',
  },
  {
    name: 'CSV column named but absent',
    contentType: csv,
    body: 'email\na@b.test\n',
    query: '?column=contact',
    status: 422,
    field: 'column',
  },
  {
    name: 'CSV column number out of range',
    contentType: csv,
    body: 'email\na@b.test\n',
    query: '?column=9',
    status: 422,
    field: 'column',
  },
  { name: 'CSV header only', contentType: csv, body: 'email\r\n', status: 422 },
  { name: 'empty CSV', contentType: csv, body: '', status: 422 },
  { name: 'CSV with an unclosed quote', contentType: csv, body: 'email\n"a@b.test\n', status: 400 },
  {
    name: 'CSV name too long',
    contentType: csv,
    body: 'email\na@b.test\n',
    query: `?name=${'n'.repeat(300)}`,
    status: 422,
    field: 'name',
  },
  {
    name: 'multipart without file',
    contentType: 'multipart/form-data; boundary=xyz',
    body: '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nlist\r\n--xyz--\r\n',
    status: 422,
    field: 'file',
  },
  { name: 'multipart without boundary', contentType: 'multipart/form-data', body: 'whatever', status: 400 },
  {
    name: 'multipart cut short',
    contentType: 'multipart/form-data; boundary=xyz',
    body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\na@b.te',
    status: 400,
  },
  {
    name: 'multipart with 50 fields before the file',
    contentType: 'multipart/form-data; boundary=xyz',
    body: `${Array.from({ length: 50 }, (_, i) => `--xyz\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join('')}--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\na@b.test\n\r\n--xyz--\r\n`,
    status: 400,
  },
];

async function listCount(): Promise<number> {
  const response = await lists.api(key, '/lists?limit=100');
  return ((await response.json()) as { lists: ListView[] }).lists.length;
}

test('malformed uploads: 4xx with the documented body, and no list left behind', async () => {
  const before = await listCount();
  for (const c of CASES) {
    const response = await lists.api(key, `/lists${c.query ?? ''}`, {
      method: 'POST',
      headers: c.contentType === undefined ? {} : { 'content-type': c.contentType },
      body: c.body,
    });
    const body = (await response.json()) as {
      code: string;
      message: string;
      errors: Array<{ field: string }>;
      request_id: string;
    };
    assert.equal(response.status, c.status, `${c.name}: ${JSON.stringify(body)}`);
    assert.equal(typeof body.message, 'string', c.name);
    assert.ok(Array.isArray(body.errors), c.name);
    assert.equal(body.request_id, response.headers.get('x-request-id'), c.name);
    assert.equal(body.code, c.status === 400 ? 'bad_request' : 'validation_failed', c.name);
    if (c.field !== undefined) assert.equal(body.errors[0]?.field, c.field, c.name);
  }
  assert.equal(await listCount(), before);
});

test('random bytes under every content type: never a 5xx', async () => {
  const types = [json, csv, 'multipart/form-data; boundary=b', 'text/plain', 'application/octet-stream'];
  for (let i = 0; i < 200; i += 1) {
    const body = randomBytes(1 + (i % 7) * 300);
    const response = await lists.api(key, '/lists', {
      method: 'POST',
      headers: { 'content-type': types[i % types.length]! },
      body,
    });
    assert.ok(response.status < 500, `status ${response.status} for ${types[i % types.length]}`);
    await response.arrayBuffer();
  }
});

test('unauthenticated uploads are refused before the body is read', async () => {
  const response = await fetch(`${lists.url}/api/v1/lists`, {
    method: 'POST',
    headers: { 'content-type': csv },
    body: 'email\na@b.test\n',
  });
  assert.equal(response.status, 401);
  assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
});

test('a CSV row with 60 KB of notes is read, its cells kept whole; a 10 MB line is refused', async () => {
  const notes = 'x'.repeat(60 * 1024);
  const response = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': csv },
    body: `email,notes\na@${lists.world.domains['accept-known']},${notes}\nb@${lists.world.domains['accept-known']},short\n`,
  });
  assert.equal(response.status, 202, await response.clone().text());
  const created = (await response.json()) as ListView;
  assert.equal(created.counts.total, 2);
  await lists.waitFor(key, created.id, (list) => list.state === 'completed');
  const results = await lists.api(key, `/lists/${created.id}/results`);
  const text = await results.text();
  assert.ok(text.includes(notes), 'the 60 KB cell comes back whole');

  const huge = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': csv },
    body: `email,notes\na@${lists.world.domains['accept-known']},${'x'.repeat(10 * 1024 * 1024)}\n`,
  });
  assert.equal(huge.status, 400);
  const refusal = (await huge.json()) as { code: string; message: string };
  assert.equal(refusal.code, 'bad_request');
  assert.match(refusal.message, /longer than 1000000 characters/);
});

test('a client that disconnects mid-upload leaves no list behind, and the server carries on', async () => {
  const { connect } = await import('node:net');
  const before = await listCount();
  const url = new URL(lists.url);
  const rows = Array.from({ length: 5000 }, (_, i) => `user${i}@example.test`).join('\n');
  await new Promise<void>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /api/v1/lists HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: text/csv\r\nContent-Length: ${10 * rows.length}\r\n\r\nemail\n${rows}\n`,
      );
      // Gone before the promised body is whole.
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 200);
    });
    socket.on('error', reject);
  });
  // The half-stored upload (hidden, `uploading`) is removed once the server sees the body end early.
  const db = new Database(join(lists.dataDir, 'mailvet.db'), { readonly: true });
  const uploading = () =>
    (db.prepare("select count(*) as n from lists where state = 'uploading'").get() as { n: number }).n;
  const rowsLeft = () => (db.prepare('select count(*) as n from list_rows').get() as { n: number }).n;
  try {
    const rowsBefore = rowsLeft();
    const deadline = Date.now() + 10_000;
    while (uploading() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(uploading(), 0);
    assert.ok(rowsLeft() <= rowsBefore, 'its rows are gone with it');
  } finally {
    db.close();
  }
  assert.equal(await listCount(), before);
  const health = await fetch(`${lists.url}/healthz`);
  assert.equal(health.status, 200);
});
