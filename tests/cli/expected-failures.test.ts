/**
 * Failures a user causes get a plain message and exit code 2, never a stack trace: a missing input
 * file, a port already in use; and output piped into a command that stops reading (`| head`) ends
 * quietly with exit code 0. The progress bar's time estimate is words a person can read.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { timeLeft } from '../../src/cli/verify-command.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));
let scratch: string;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-cli-failures-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

function mailvet(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, MAILVET_SMTP_PROBE: 'false', DATABASE_URL: '', REDIS_URL: '', ...env } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

const noStack = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at |node:internal/, stderr);

test('verify --file on a missing file: the file named, exit 2, no stack', async () => {
  const missing = join(scratch, 'nope.csv');
  const run = await mailvet(['verify', '--file', missing]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, new RegExp(`cannot read ${missing}: no such file`));
  noStack(run.stderr);
});

test('serve on a port already in use: said so, exit 2, no stack', async () => {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  try {
    const run = await mailvet(['serve'], {
      HOST: '127.0.0.1',
      PORT: String(port),
      MAILVET_DATA_DIR: join(scratch, 'data'),
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is already in use`));
    noStack(run.stderr);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('output piped into a reader that stops early: a quiet exit 0', async () => {
  const input = join(scratch, 'many.csv');
  await writeFile(input, `email\n${Array.from({ length: 20_000 }, (_, i) => `bad${i}@@x`).join('\n')}\n`);
  const child = spawn(process.execPath, [BIN, 'verify', '--file', input], {
    env: { ...process.env, MAILVET_SMTP_PROBE: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  // Like `head -1`: read the first chunk, then close the pipe.
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, stderr);
  noStack(stderr);
  assert.doesNotMatch(stderr, /EPIPE/);
});

test('the time estimate reads as words', () => {
  assert.equal(timeLeft(0, 5000), 'estimating…');
  assert.equal(timeLeft(0.5, 500), 'estimating…');
  assert.equal(timeLeft(0.5, 20_000), 'about 20 s left');
  assert.equal(timeLeft(0.25, 60_000), 'about 3 min left');
  assert.equal(timeLeft(0.1, 3_600_000), 'about 9 h 0 min left');
  assert.equal(timeLeft(1, 10_000), 'finishing');
});
