/**
 * Attack: four uploads at once of rows with millions of empty cells. The column cap was checked on
 * the finished row, and csv-parse builds a row's array of cells whole (its size bound counts the
 * cells' characters, and empty cells have none): the four drove a server from 129 MB to 679 MB of
 * RSS in 3 s before they were refused. The cap now applies while the row streams, so the four are
 * refused at the 1,001st cell, and the process grows by tens of megabytes, not hundreds. In a file
 * of its own: RSS seldom shrinks, so what an earlier test in the same process grew would be counted.
 *
 * The server runs in this process, so the RSS measured is the server's plus the test's own (the
 * bodies are generated as they are sent).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { healthzWhile } from './responsiveness.ts';
import { csvStream, streamUpload } from './streamed-upload.ts';

const MB = 1024 * 1024;

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer({ MAILVET_SMTP_PROBE: 'false' });
  key = await lists.key();
});
after(() => lists?.close());

test('four uploads at once of rows of millions of empty cells: refused at the cap, RSS grows under 100 MB', async () => {
  const emptyCells = ','.repeat(4 * MB);
  // The growth is measured, not the total: the process (server and test) starts near 130 MB on
  // Node 20 and near 200 MB on Node 24. The attack once added 550 MB.
  const baseline = process.memoryUsage().rss;
  let peakRss = baseline;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const uploads = Promise.all(
    Array.from({ length: 4 }, () =>
      streamUpload(
        lists,
        key,
        csvStream('email,notes', 3, (i) => `m${i}@example.com${emptyCells}`),
      ),
    ),
  );
  try {
    const health = await healthzWhile(lists.url, uploads);
    for (const answer of await uploads) {
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      const [error] = answer.body.errors as { field: string; message: string }[];
      assert.equal(error?.field, 'file');
      assert.match(String(error?.message), /^the row starting on line 2 has more than 1000 columns/);
    }
    assert.ok(health.samples.length > 0);
  } finally {
    clearInterval(sampler);
  }
  const growth = peakRss - baseline;
  assert.ok(
    growth < 100 * MB,
    `RSS grew ${(growth / MB).toFixed(0)} MB, from ${(baseline / MB).toFixed(0)} to ${(peakRss / MB).toFixed(0)} MB`,
  );
  const index = (await (await lists.api(key, '/lists')).json()) as { lists: unknown[] };
  assert.deepEqual(index.lists, [], 'nothing stored');
});
