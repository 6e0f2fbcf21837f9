/**
 * Attack: CSV uploads of very wide rows. A row with hundreds of thousands of cells became as many
 * strings, a batch held a thousand such rows, and a free key drove a server to 4.4 GB of memory
 * with /healthz stalled for 11-20 s. A row is now bounded (about 1 MB, 1,000 columns, 64 KB
 * besides its address) and rows are stored as soon as a batch reaches 1 MB: memory stays flat
 * whatever the file, and the server keeps answering.
 *
 * The server runs in this process, so the memory measured is the server's plus the test's own
 * (the body is generated as it is sent, never held whole).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { healthzWhile } from './responsiveness.ts';
import { csvStream, streamUpload } from './streamed-upload.ts';

const MB = 1024 * 1024;
const RSS_BOUND_BYTES = 500 * MB;
const HEALTHZ_BOUND_MS = 200;

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer({ MAILVET_SMTP_PROBE: 'false' });
  key = await lists.key();
});
after(() => lists?.close());

function upload(body: ReadableStream<Uint8Array>) {
  return streamUpload(lists, key, body);
}

/** Runs `attack` while sampling this process's RSS and /healthz; returns both with its outcome. */
async function measured<T>(attack: () => Promise<T>) {
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const outcome = attack();
  try {
    const health = await healthzWhile(lists.url, outcome);
    return { outcome: await outcome, health, peakRss };
  } finally {
    clearInterval(timer);
  }
}

function assertUnharmed(health: { medianMs: number; worstMs: number; samples: number[] }, peakRss: number) {
  assert.ok(peakRss < RSS_BOUND_BYTES, `peak RSS ${(peakRss / MB).toFixed(0)} MB`);
  assert.ok(
    health.medianMs < HEALTHZ_BOUND_MS,
    `median /healthz ${health.medianMs.toFixed(0)} ms (worst ${health.worstMs.toFixed(0)}) over ${health.samples.length} samples`,
  );
}

test('rows of 100,000 cells are refused at the first one; memory and /healthz unharmed', async () => {
  const cells = ','.repeat(100_000);
  const { outcome, health, peakRss } = await measured(() =>
    upload(csvStream('email,notes', 200, (i) => `a${i}@example.com${cells}`)),
  );
  assert.equal(outcome.status, 422);
  assert.equal(outcome.body.code, 'validation_failed');
  const [error] = outcome.body.errors as { field: string; message: string }[];
  assert.equal(error?.field, 'file');
  assert.match(
    String(error?.message),
    /^the row starting on line 2 has more than 1000 columns: at most 1000/,
  );
  assertUnharmed(health, peakRss);
  const index = (await (await lists.api(key, '/lists')).json()) as { lists: unknown[] };
  assert.deepEqual(index.lists, [], 'nothing stored');
});

test('100 MB of rows at the bounds (1,000 columns, 64 KB each) is stored with flat memory', async () => {
  const cell = 'n'.repeat(64);
  const others = Array.from({ length: 999 }, () => cell).join(',');
  const rows = 1600;
  const { outcome, health, peakRss } = await measured(() =>
    upload(csvStream(`email${',c'.repeat(999)}`, rows, (i) => `w${i}@example.com,${others}`)),
  );
  assert.equal(outcome.status, 202, JSON.stringify(outcome.body));
  assert.equal((outcome.body.counts as { total: number }).total, rows);
  assertUnharmed(health, peakRss);
  console.log(
    `stored ${rows} wide rows; peak RSS ${(peakRss / MB).toFixed(0)} MB, median /healthz ${health.medianMs.toFixed(1)} ms over ${health.samples.length} samples`,
  );
  const id = String(outcome.body.id);
  await lists.api(key, `/lists/${id}/cancel`, { method: 'POST' });
  assert.equal((await lists.api(key, `/lists/${id}`, { method: 'DELETE' })).status, 204);
});
