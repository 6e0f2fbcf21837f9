/**
 * Attack (and everyday files): a quote inside an unquoted CSV cell — `foo"bar@accept.test`, or a
 * spreadsheet formula such as `=HYPERLINK("x")@gmial.com` — once escaped csv-parse as
 * INVALID_OPENING_QUOTE: `500 internal_error` from `POST /lists` and the dashboard's upload, and an
 * error log line carrying the uploaded cell. Such a quote is now a plain character, as spreadsheet
 * programs read it; a file that is truly not CSV (a quote never closed) is a 400 naming its line,
 * and no uploaded value reaches a log line or an error body.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LogCapture } from '../http/log-capture.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';

const logs = new LogCapture();
let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer(
    { MAILVET_SMTP_PROBE: 'false' },
    {},
    { logger: { level: 'info', stream: logs } },
  );
  key = await lists.key();
});
after(() => lists?.close());

const STRAY =
  'email,name\nfoo"bar@accept.test,Foo\n=HYPERLINK("x")@gmial.com,Bar "the" Baz\nalice@accept.test,Alice\n';

function postCsv(body: string) {
  return lists.api(key, '/lists', { method: 'POST', headers: { 'content-type': 'text/csv' }, body });
}

test('a stray quote in an unquoted cell is read as a character: 202, every row kept as written', async () => {
  const response = await postCsv(STRAY);
  const list = (await response.json()) as { id: string; counts: { total: number } };
  assert.equal(response.status, 202, JSON.stringify(list));
  assert.equal(list.counts.total, 3);
  await lists.waitFor(key, list.id, (view) => view.state === 'completed');
  const results = await (await lists.api(key, `/lists/${list.id}/results?format=json`)).json();
  const emails = (results as Array<{ email: string }>).map((row) => row.email);
  assert.deepEqual(emails, ['foo"bar@accept.test', '=HYPERLINK("x")@gmial.com', 'alice@accept.test']);
});

test('the dashboard upload (multipart) reads the same file the same way', async () => {
  const form = new FormData();
  form.set('file', new Blob([STRAY], { type: 'text/csv' }), 'export.csv');
  const response = await lists.api(key, '/lists', { method: 'POST', body: form });
  const list = (await response.json()) as { counts: { total: number } };
  assert.equal(response.status, 202, JSON.stringify(list));
  assert.equal(list.counts.total, 3);
});

test('a quote never closed is a 400 naming the line; no cell value in the body or any log line', async () => {
  const secret = 'unclosed-secret-cell@example.com';
  const response = await postCsv(`email\nalice@accept.test\n"${secret},x\n`);
  const body = (await response.json()) as { code: string; errors: Array<{ field: string; message: string }> };
  assert.equal(response.status, 400);
  assert.equal(body.code, 'bad_request');
  assert.equal(body.errors[0]?.field, 'file');
  assert.match(body.errors[0]?.message ?? '', /^not readable as CSV at line \d+ \(CSV_QUOTE_NOT_CLOSED\)$/);
  assert.doesNotMatch(JSON.stringify(body), /unclosed-secret/);
  assert.ok(logs.lines.length > 0, 'the server logged its requests');
  assert.doesNotMatch(logs.text, /unclosed-secret/);
  assert.doesNotMatch(logs.text, /"level":50/, 'nothing logged as an error');
});
