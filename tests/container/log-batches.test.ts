/**
 * Standard output's log lines go out in batches: whatever way the process ends (exit, an uncaught
 * error, an emptied event loop) its lines are written, in order; and a process that keeps
 * running writes them within LOG_BATCH_MS, with no further line to push them out.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LineBatch, LOG_BATCH_MS } from '../../src/container/logger.ts';

const SCRIPT = fileURLToPath(new URL('./log-lines.ts', import.meta.url));

function run(how: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, how], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return { child, stdout: () => stdout };
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { line: number; msg: string });

for (const how of ['exit', 'throw', 'drain']) {
  test(`every line is written when the process ends (${how})`, async () => {
    const { child, stdout } = run(how);
    const [code] = await once(child, 'close');
    assert.equal(code, { exit: 3, throw: 1, drain: 0 }[how]);
    assert.deepEqual(
      lines(stdout()).map((entry) => entry.line),
      [1, 2, 3, 4],
    );
  });
}

test('a running process writes its lines within the batch delay, unprompted', async () => {
  const { child, stdout } = run('stay');
  try {
    await once(child.stderr, 'data');
    const deadline = Date.now() + 20 * LOG_BATCH_MS;
    while (lines(stdout()).length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      lines(stdout()).map((entry) => entry.msg),
      ['a line', 'a line', 'a line', 'another logger'],
    );
  } finally {
    child.kill('SIGKILL');
  }
});

test('LineBatch: lines wait until the batch is full, then go out as one write, in order', () => {
  const writes: string[] = [];
  let synced = 0;
  const batch = new LineBatch(
    {
      write: (data) => writes.push(data) > 0,
      flushSync: () => {
        synced += 1;
      },
    },
    20,
  );
  batch.write('{"a":1}\n');
  batch.write('{"b":2}\n');
  assert.deepEqual(writes, [], '16 characters: below the batch');
  batch.write('{"c":3}\n');
  assert.deepEqual(writes, ['{"a":1}\n{"b":2}\n{"c":3}\n'], 'full: one write');
  batch.write(`{"long":"${'x'.repeat(40)}"}\n`);
  assert.equal(writes.length, 2, 'a line longer than a batch goes out at once');
  batch.write('{"d":4}\n');
  let told = false;
  batch.flush(() => {
    told = true;
  });
  assert.equal(writes[2], '{"d":4}\n');
  assert.equal(told, true, "pino's flush callback is called");
  batch.flush();
  assert.equal(writes.length, 3, 'nothing pending: no empty write');
  batch.write('{"e":5}\n');
  batch.flushSync();
  assert.deepEqual([writes[3], synced], ['{"e":5}\n', 1]);
});
