/**
 * `mailvet backup --out FILE`, run as an operator would: spawned through bin/mailvet
 * while a `mailvet serve` child works on the same data directory and keeps writing (verifications
 * charge the quota, lists are uploaded); then the backup is restored into a new data directory
 * and a new server proves over HTTP that the key, the list and its rows came back, and that the
 * secret key file is what keeps the dashboard session's CSRF token (and so every key-derived
 * secret) the same. Also what it refuses, and that a failed backup leaves no file behind.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SECRET_KEY_FILE } from '../../src/adapters/secret-key.ts';
import type { ListView } from '../../src/lists/list-view.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';
import { createKey, type ServeProcess, spawnServe } from '../scale-out/processes.ts';

const BIN = 'bin/mailvet';
const ROWS = 40;

let world: DnsWorld;
let root: string;
before(async () => {
  world = await startDnsWorld();
  root = await mkdtemp(join(tmpdir(), 'mailvet-backup-'));
});
after(async () => {
  await world?.close();
  await rm(root, { recursive: true, force: true });
});

function environment(dataDir: string): Record<string, string> {
  return {
    MAILVET_DATA_DIR: dataDir,
    MAILVET_DNS_SERVERS: world.servers,
    // The test world has no gmail.com: without this every failure would count as the resolver's.
    MAILVET_DNS_CONTROL_NAMES: '',
    MAILVET_SMTP_PROBE: 'false',
    MAILVET_RESULT_TTL: '0',
  };
}

/** `bin/mailvet ...args` to completion, whatever its exit code. */
function mailvet(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const {
    DATABASE_URL: _d,
    REDIS_URL: _r,
    MAILVET_DATA_DIR: _m,
    MAILVET_SECRET_KEY: _s,
    ...inherited
  } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...inherited, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number((error as { code?: unknown }).code), stdout, stderr }),
    );
  });
}

function api(url: string, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
}

async function uploadList(url: string, key: string, name: string, emails: string[]): Promise<string> {
  const response = await api(url, key, '/lists', { method: 'POST', body: JSON.stringify({ name, emails }) });
  assert.equal(response.status, 202, await response.clone().text());
  return ((await response.json()) as ListView).id;
}

async function completed(url: string, key: string, id: string): Promise<ListView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const list = (await (await api(url, key, `/lists/${id}`)).json()) as ListView;
    if (list.state === 'completed') return list;
    if (Date.now() > deadline) throw new Error(`hang guard: list still ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The response's status, its body read to the end. */
async function statusOf(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.arrayBuffer();
  return answered.status;
}

/** Signs a user up; returns the session cookie. */
async function signUp(url: string, email: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: 'a long enough password' }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';', 1)[0] ?? '')
    .find((pair) => pair.startsWith('mailvet_session='));
  assert.ok(cookie, 'a session cookie');
  return cookie;
}

/** The session's CSRF token: an HMAC under the server's secret key, so it shows which key is in use. */
async function csrfToken(url: string, cookie: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/session`, { headers: { cookie } });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { csrf_token: string }).csrf_token;
}

const emails = Array.from({ length: ROWS }, (_, i) => `user${i + 1}@d${(i % 4) + 1}.bench.test`);

describe('mailvet backup', () => {
  test('a backup taken while serve runs and writes restores to a server with the same key, list, rows and secret', async () => {
    const live = join(root, 'live');
    const env = environment(live);
    const { key } = await createKey('backup test', ['--plan', 'pro', '--rate-limit', '1000'], env);
    let server: ServeProcess | undefined = await spawnServe(env);
    const out = join(root, 'nightly.db');
    let listId: string;
    let csrf: string;
    let cookie: string;
    try {
      cookie = await signUp(server.url, 'owner@example.com');
      csrf = await csrfToken(server.url, cookie);
      listId = await uploadList(server.url, key, 'before the backup', emails);
      await completed(server.url, key, listId);

      // Writes all through the backup: each verification charges the quota in a write
      // transaction, and uploads store rows.
      let writing = true;
      const statuses: number[] = [];
      const traffic = (async () => {
        for (let i = 0; writing; i++) {
          const url = server!.url;
          const body = JSON.stringify({ email: `busy${i}@d1.bench.test` });
          statuses.push(await statusOf(api(url, key, '/verify', { method: 'POST', body })));
          if (i % 10 !== 0) continue;
          const upload = JSON.stringify({ name: `during ${i}`, emails: emails.slice(0, 5) });
          statuses.push(await statusOf(api(url, key, '/lists', { method: 'POST', body: upload })));
        }
      })();
      const backup = await mailvet(['backup', '--out', out, '--json'], env);
      writing = false;
      await traffic;
      assert.equal(backup.code, 0, backup.stderr);
      assert.ok(server.alive(), 'the server ran through the backup');
      assert.ok(
        statuses.length > 0 && statuses.every((status) => status === 200 || status === 202),
        String(statuses),
      );

      const summary = JSON.parse(backup.stdout) as {
        path: string;
        bytes: number;
        migration: string;
        counts: Record<string, number>;
        secret_key: { source: string; path: string | null };
      };
      assert.equal(summary.path, out);
      assert.equal(summary.bytes, (await stat(out)).size);
      assert.equal(
        summary.counts.api_keys,
        1,
        'the dashboard key of the signed-up account is not an API key',
      );
      assert.equal(summary.counts.users, 1);
      assert.equal(summary.counts.accounts, 2);
      assert.ok(
        summary.counts.lists! >= 1 && summary.counts.list_rows! >= ROWS,
        JSON.stringify(summary.counts),
      );
      assert.match(summary.migration, /^\d{4}-/);
      assert.deepEqual(summary.secret_key, { source: 'file', path: join(live, SECRET_KEY_FILE) });
      assert.equal((await stat(out)).mode & 0o777, 0o600, 'the copy is private, like the database');
      assert.deepEqual(
        (await readdir(root)).filter((name) => name.includes('nightly')),
        ['nightly.db'],
        'one self-contained file: no -wal, -shm or temporary file beside it',
      );

      const human = await mailvet(['backup', '--out', join(root, 'second.db')], env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, new RegExp(`to ${join(root, 'second.db')} \\([\\d,]+ bytes\\)`));
      assert.match(human.stdout, /1 API key, 1 user, \d+ lists \([\d,]+ rows\)/);
      assert.match(
        human.stdout,
        new RegExp(`the secret key ${join(live, SECRET_KEY_FILE)}.*Mailchimp credentials`),
      );
    } finally {
      await server.stop();
      server = undefined;
    }

    // Restore as docs/deployment.md says: the backup as mailvet.db of a fresh data directory,
    // with the secret key file beside it.
    const restored = join(root, 'restored');
    await mkdir(restored, { mode: 0o700 });
    await copyFile(out, join(restored, 'mailvet.db'));
    await copyFile(join(live, SECRET_KEY_FILE), join(restored, SECRET_KEY_FILE));
    server = await spawnServe(environment(restored));
    try {
      const list = (await (await api(server.url, key, `/lists/${listId}`)).json()) as ListView;
      assert.equal(list.state, 'completed');
      assert.equal(list.counts.total, ROWS);
      const rows = (await (
        await api(server.url, key, `/lists/${listId}/results?format=json`)
      ).json()) as Array<{
        email: string;
        result: { status: string } | null;
      }>;
      assert.deepEqual(
        rows.map((row) => row.email),
        emails,
      );
      assert.ok(
        rows.every((row) => row.result !== null),
        'every row kept its result',
      );
      assert.equal(await csrfToken(server.url, cookie), csrf, 'the same secret key: the same CSRF token');
    } finally {
      await server.stop();
    }

    // Without the key file the server makes a new key: keys and lists still work, but everything
    // derived from the old key (CSRF tokens here; stored credentials, webhook secrets) does not.
    const keyless = join(root, 'keyless');
    await mkdir(keyless, { mode: 0o700 });
    await copyFile(out, join(keyless, 'mailvet.db'));
    server = await spawnServe(environment(keyless));
    try {
      assert.equal((await api(server.url, key, `/lists/${listId}`)).status, 200);
      assert.notEqual(await csrfToken(server.url, cookie), csrf);
    } finally {
      await server.stop();
    }
  });

  test('refuses: no database (named), DATABASE_URL, an existing file without --force, the live files', async () => {
    const empty = join(root, 'empty');
    const missing = await mailvet(['backup', '--out', join(root, 'none.db')], environment(empty));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, new RegExp(`no database at ${join(empty, 'mailvet.db')}`));
    assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
    await assert.rejects(stat(empty), 'nothing was made');

    const pg = await mailvet(['backup', '--out', join(root, 'pg.db')], {
      ...environment(empty),
      DATABASE_URL: 'postgres://mailvet:hunter2@127.0.0.1:1/mailvet',
    });
    assert.equal(pg.code, 2);
    assert.match(pg.stderr, /DATABASE_URL is set.*pg_dump/);
    assert.doesNotMatch(pg.stderr, /hunter2/, 'the password is not echoed');

    const dataDir = join(root, 'refusals');
    const env = environment(dataDir);
    await createKey('refusals', [], env);
    const existing = join(root, 'existing.db');
    await writeFile(existing, 'an older backup');
    const kept = await mailvet(['backup', '--out', existing], env);
    assert.equal(kept.code, 2);
    assert.match(kept.stderr, new RegExp(`${existing} exists: give --force`));
    assert.equal(await readFile(existing, 'utf8'), 'an older backup');
    const forced = await mailvet(['backup', '--out', existing, '--force', '--json'], env);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(JSON.parse(forced.stdout).counts.api_keys, 1);
    assert.equal((await readFile(existing)).subarray(0, 15).toString(), 'SQLite format 3');

    const overLive = await mailvet(['backup', '--out', join(dataDir, 'mailvet.db'), '--force'], env);
    assert.equal(overLive.code, 2);
    assert.match(overLive.stderr, /a file of the live data directory/);
    const noDir = await mailvet(['backup', '--out', join(root, 'no', 'such', 'dir.db')], env);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /the directory .*no\/such does not exist/);
  });

  test('a failed backup leaves no file: not a database', async () => {
    const dataDir = join(root, 'garbage');
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(join(dataDir, 'mailvet.db'), Buffer.alloc(8192, 7));
    const outDir = join(root, 'garbage-out');
    await mkdir(outDir);
    const failed = await mailvet(['backup', '--out', join(outDir, 'b.db')], environment(dataDir));
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(failed.stderr, /is not a readable SQLite database/);
    assert.deepEqual(await readdir(outDir), [], 'neither the file nor a temporary one');
  });
});
