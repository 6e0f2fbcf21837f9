/**
 * An upload's reader hands the event loop back while it parses: chunks a fast client already sent
 * reach the parser as microtasks, so without a turn nothing else in the process (a health check,
 * an API call) ran until the whole buffered run was parsed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { takingTurns } from '../../../../src/http/routes/v1/lists/upload-body.ts';

/** Chunks that are all there at once, as a socket's buffered reads are. */
async function* ready(count: number): AsyncGenerator<number> {
  for (let i = 0; i < count; i++) yield i;
}

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Reads `source`, spending `workMs` on each chunk; the chunks and how many had been read when a setImmediate ran. */
async function readWithWork(source: AsyncIterable<number>, workMs: number) {
  const seen: number[] = [];
  let seenAtTurn: number | undefined;
  setImmediate(() => {
    seenAtTurn = seen.length;
  });
  for await (const chunk of source) {
    seen.push(chunk);
    busy(workMs);
  }
  return { seen, seenAtTurn };
}

test('without turns, work queued behind an upload waits for every ready chunk', async () => {
  const { seenAtTurn } = await readWithWork(ready(20), 2);
  assert.equal(seenAtTurn, undefined, 'the immediate ran only after the read');
});

test('with turns, other work runs once 5 ms of parsing went by, and every chunk arrives in order', async () => {
  const { seen, seenAtTurn } = await readWithWork(takingTurns(ready(20), 5), 2);
  assert.deepEqual(
    seen,
    Array.from({ length: 20 }, (_, i) => i),
  );
  // 2 ms a chunk: the third chunk's work passes 5 ms, and the turn comes before the fourth.
  assert.ok(seenAtTurn !== undefined && seenAtTurn <= 3, `the immediate ran after ${seenAtTurn} chunks`);
});

test('a reader that does little takes few turns', async () => {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const { seen } = await readWithWork(takingTurns(ready(10_000), 5), 0);
  counting = false;
  assert.equal(seen.length, 10_000);
  assert.ok(turns < 100, `${turns} turns for 10,000 chunks`);
});

test('a failing source fails the reader', async () => {
  async function* failing() {
    yield 1;
    throw new Error('socket reset');
  }
  const read = async () => {
    for await (const _ of takingTurns(failing(), 5));
  };
  await assert.rejects(read, /socket reset/);
});
