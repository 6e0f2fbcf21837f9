/**
 * The command line's plain words at its edges. A data directory the user cannot write, a database
 * it may only read, an output folder that does not exist, a directory given as the input: one
 * plain line on stderr (no JSON log line, no stack trace) and exit code 2. `--version` prints
 * package.json's version; `serve` says where it listens, once it does, in one line a person reads.
 *
 * The tests run as root, whom file modes do not stop: the permission cases run their child as
 * `nobody` (uid 65534) then, on folders and files owned by root, so that EACCES is real.
 */
import assert from 'node:assert/strict';
import { type ExecFileOptions, execFile, spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { addressToVisit } from '../../src/cli/serve-command.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));
const AS_ROOT = process.getuid?.() === 0;
/** Who the permission cases run as: another user when we are root, else ourselves. */
const UNPRIVILEGED: ExecFileOptions = AS_ROOT ? { uid: 65534, gid: 65534 } : {};

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-cli-plain-'));
  // `nobody` must reach what is inside.
  await chmod(scratch, 0o755);
  if (AS_ROOT) {
    // And run this Node on this checkout: a Node or a clone under a folder only root may enter
    // (a home directory, `mktemp -d`) would fail every case here for a reason of its own.
    const probe = spawnSync(process.execPath, [BIN, '--version'], {
      uid: 65534,
      gid: 65534,
      encoding: 'utf8',
    });
    assert.equal(
      probe.status,
      0,
      `uid 65534 cannot run ${process.execPath} ${BIN}: put both where other users may read (${probe.error?.message ?? probe.stderr})`,
    );
  }
});
after(() => rm(scratch, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function mailvet(
  args: string[],
  env: Record<string, string> = {},
  options: ExecFileOptions = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        ...options,
        env: {
          ...process.env,
          HOME: tmpdir(),
          MAILVET_SMTP_PROBE: 'false',
          MAILVET_DNS_SERVERS: '127.0.0.1:9',
          DATABASE_URL: '',
          REDIS_URL: '',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** Exit 2 and exactly one plain line on stderr: `mailvet: ...`, not JSON, no stack. */
function plainFailure(run: Run, line: RegExp): void {
  assert.equal(run.code, 2, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^mailvet: /);
  assert.match(lines[0]!, line);
  assert.doesNotMatch(run.stderr + run.stdout, /\n\s+at |node:internal|"level":/);
}

describe('plain failures, exit code 2', () => {
  it('serve with a data directory it cannot write says so, not a port', async () => {
    const locked = join(scratch, 'locked');
    await mkdir(locked, { mode: 0o500 });
    await chmod(locked, 0o500);
    const data = join(locked, 'data');
    const run = await mailvet(
      ['serve'],
      { HOST: '127.0.0.1', PORT: '0', MAILVET_DATA_DIR: data },
      UNPRIVILEGED,
    );
    plainFailure(run, new RegExp(`^mailvet: cannot write ${data}: permission denied$`));
    assert.doesNotMatch(run.stderr, /PORT|privileges/);
  });

  it('keys list and migrate on a database this user may only read', async () => {
    const data = join(scratch, 'read-only');
    await mkdir(data);
    const made = await mailvet(['keys', 'create', '--name', 'ops', '--init'], { MAILVET_DATA_DIR: data });
    assert.equal(made.code, 0, made.stderr);
    const database = join(data, 'mailvet.db');
    // Readable, not writable, by the owner as by anyone; the folder takes no new file either.
    await chmod(database, 0o444);
    await rm(join(data, 'mailvet.db-wal'), { force: true });
    await rm(join(data, 'mailvet.db-shm'), { force: true });
    await chmod(data, 0o555);
    try {
      for (const args of [['keys', 'list'], ['migrate'], ['accounts', 'list']]) {
        const run = await mailvet(args, { MAILVET_DATA_DIR: data }, UNPRIVILEGED);
        plainFailure(
          run,
          new RegExp(`^mailvet: cannot write ${database}: the database is read-only for this user;`),
        );
      }
    } finally {
      await chmod(data, 0o755);
    }
  });

  it('verify --file with --out in a folder that does not exist, before verifying anything', async () => {
    const input = join(scratch, 'in.csv');
    await writeFile(input, 'email\njane@example.com\n');
    const out = join(scratch, 'missing', 'out.csv');
    const run = await mailvet(['verify', '--file', input, '--out', out]);
    plainFailure(
      run,
      new RegExp(`^mailvet: cannot write ${out}: no such directory ${join(scratch, 'missing')}$`),
    );
    await assert.rejects(stat(join(scratch, 'missing')));
  });

  it('verify --file with --out where a file stands for a folder, or naming a folder', async () => {
    const input = join(scratch, 'in2.csv');
    await writeFile(input, 'email\njane@example.com\n');
    const underFile = join(input, 'out.csv');
    plainFailure(
      await mailvet(['verify', '--file', input, '--out', underFile]),
      new RegExp(`^mailvet: cannot write ${underFile}: a part of the path is a file, not a directory$`),
    );
    plainFailure(
      await mailvet(['verify', '--file', input, '--out', scratch]),
      new RegExp(`^mailvet: cannot write ${scratch}: it is a directory$`),
    );
  });

  it('verify --file naming a directory', async () => {
    const run = await mailvet(['verify', '--file', scratch]);
    plainFailure(run, new RegExp(`^mailvet: cannot read ${scratch}: it is a directory$`));
  });
});

describe('the version and the listening line', () => {
  it('--version and -V print the version of package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const run = await mailvet([flag]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${version}\n`);
    }
  });

  it('serve prints one plain line with the real address once it listens, beside the JSON logs', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        MAILVET_DATA_DIR: join(scratch, 'serving'),
        MAILVET_SMTP_PROBE: 'false',
        MAILVET_DNS_SERVERS: '127.0.0.1:9',
        DATABASE_URL: '',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    try {
      const lines: string[] = [];
      const plain = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (line.startsWith('Mailvet is listening')) resolve(line);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
      });
      const match = /^Mailvet is listening on (http:\/\/127\.0\.0\.1:(\d+)) — dashboard and API$/.exec(plain);
      assert.ok(match, plain);
      assert.notEqual(match[2], '0', 'the real port, not the one asked for');
      const health = await fetch(`${match[1]}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(lines.filter((line) => line.startsWith('Mailvet is listening')).length, 1);
      assert.ok(
        lines.filter((line) => !line.startsWith('Mailvet')).every((line) => line.startsWith('{')),
        'every other line is a JSON log line',
      );
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    }
  });

  it('a server on every address is reached at localhost', () => {
    assert.equal(addressToVisit('http://0.0.0.0:8080'), 'http://localhost:8080');
    assert.equal(addressToVisit('http://[::]:8080'), 'http://localhost:8080');
    assert.equal(addressToVisit('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(addressToVisit('http://[::1]:3000'), 'http://[::1]:3000');
  });
});
