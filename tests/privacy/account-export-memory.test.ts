/**
 * The export of an account holding 100,000 result rows streams in bounded memory: read over HTTP
 * and thrown away chunk by chunk, the document is far larger than the heap grows while it is
 * written (its pages are turned into text one at a time, never gathered).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { finishedList } from './finished-list.ts';

const PLANS = {
  ...BUILT_IN_PLANS,
  free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000, maxStoredRows: 1_000_000 },
};
const ROWS = 100_000;

// A full collection before each reading, so the figure is what is held, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heldBytes = () => {
  collect();
  return process.memoryUsage().heapUsed;
};

let t: TestApp;
before(async () => {
  t = await testApp({ plans: PLANS });
  await finishedList(
    t.store,
    t.keyRecord,
    Array.from({ length: ROWS }, (_, i) => `person${i}@multi-mx.test`),
    new Date(),
  );
});
after(async () => t?.close());

test('an export of 100,000 result rows: the heap grows by a small part of the document', async () => {
  const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const baseline = heldBytes();
  let peak = baseline;
  let bytes = 0;
  let tail = '';
  const response = await fetch(`${origin}/api/v1/account/export`, { headers: t.auth() });
  assert.equal(response.status, 200);
  const decoder = new TextDecoder();
  let chunks = 0;
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength;
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-200);
    if (++chunks % 100 === 0) peak = Math.max(peak, heldBytes());
  }
  const growth = peak - baseline;
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  process.stdout.write(`# export: ${mb(bytes)} streamed, heap held at most ${mb(growth)}\n`);
  assert.ok(bytes > 50 * 1048576, `the document is ${mb(bytes)}`);
  assert.ok(growth < 32 * 1048576, `the heap grew by ${mb(growth)} for a ${mb(bytes)} document`);
  assert.ok(tail.trimEnd().endsWith('}'), 'the document is whole');
});
