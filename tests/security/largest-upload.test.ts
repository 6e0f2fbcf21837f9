/**
 * The documented maximum upload, 1,000,000 rows, streamed to a server whose whole-request deadline
 * is 1.5 s: it completes (the upload route is bound only by each silence, slow-uploads.test.ts),
 * every row is stored, and the list is deleted again. A minute or two of work: CI runs it on its
 * first Node pass only (the same code runs on both).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { csvStream, streamUpload } from './streamed-upload.ts';

const REQUEST_TIMEOUT_MS = 1500;

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer(
    { MAILVET_SMTP_PROBE: 'false', MAILVET_UPLOAD_IDLE_TIMEOUT_MS: '1000' },
    {},
    { requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
  key = await lists.key();
});
after(() => lists?.close());

test('the documented maximum: a 1,000,000-row upload completes past the request deadline', async () => {
  const rows = 1_000_000;
  const body = csvStream('email,n', rows, (i) => `u${i}@d${i % 1000}.example,${i}`);
  const started = performance.now();
  const { status, body: created } = await streamUpload(lists, key, body);
  const tookMs = performance.now() - started;
  assert.equal(status, 202, JSON.stringify(created));
  assert.equal((created.counts as { total: number }).total, rows);
  console.log(`1,000,000 rows uploaded and stored in ${(tookMs / 1000).toFixed(1)} s`);
  assert.ok(tookMs > REQUEST_TIMEOUT_MS, 'it really outlasted the request deadline');
  await lists.api(key, `/lists/${created.id}/cancel`, { method: 'POST' });
  assert.equal((await lists.api(key, `/lists/${created.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await lists.api(key, `/lists/${created.id}`)).status, 404);
});
