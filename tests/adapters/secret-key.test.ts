/**
 * The server secret: from MAILVET_SECRET_KEY, or generated once into the data dir
 * (embedded mode) — the same key on every later start, and the same key for processes that race
 * on a fresh data dir — and required in scale-out. Then the subkeys derived from it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { deriveKey, loadSecretKey, SECRET_KEY_FILE } from '../../src/adapters/secret-key.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const scratch = await mkdtemp(join(tmpdir(), 'mailvet-secret-'));
after(() => rm(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => join(scratch, `data-${++dirs}`, 'nested');
const embedded = (dir: string) => ({
  MAILVET_DATA_DIR: dir,
  DATABASE_URL: undefined,
  MAILVET_SECRET_KEY: undefined,
});
const HEX = 'a1'.repeat(32);

describe('loadSecretKey, embedded mode', () => {
  it('generates a 32-byte key on first start, into a 0600 file, and reads the same one after', async () => {
    const dir = freshDir();
    const first = await loadSecretKey(embedded(dir));
    assert.equal(first.length, 32);
    const path = join(dir, SECRET_KEY_FILE);
    assert.equal(await readFile(path, 'utf8'), `${first.toString('hex')}\n`);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir), [SECRET_KEY_FILE], 'no temporary file is left behind');
    assert.deepEqual(await loadSecretKey(embedded(dir)), first);
    assert.notDeepEqual(await loadSecretKey(embedded(freshDir())), first, 'each data dir its own key');
  });

  it('concurrent loads in one process agree too (the losing writer reads the winner)', async () => {
    const dir = freshDir();
    const keys = await Promise.all(Array.from({ length: 4 }, () => loadSecretKey(embedded(dir))));
    assert.equal(new Set(keys.map((key) => key.toString('hex'))).size, 1);
    assert.deepEqual(await readdir(dir), [SECRET_KEY_FILE]);
  });

  it('two processes starting at once on a fresh data dir end with the same key', async () => {
    // Several rounds: one round may not interleave the two processes at the critical moment.
    for (let round = 0; round < 4; round += 1) {
      const dir = freshDir();
      const keys = await raceChildren(dir, 3);
      assert.match(keys[0] ?? '', /^[0-9a-f]{64}$/);
      assert.equal(new Set(keys).size, 1, `round ${round}: ${keys.join(' ')}`);
      assert.equal((await readFile(join(dir, SECRET_KEY_FILE), 'utf8')).trim(), keys[0]);
      assert.deepEqual(await readdir(dir), [SECRET_KEY_FILE]);
    }
  });

  it('takes MAILVET_SECRET_KEY over the file, and writes none', async () => {
    const dir = freshDir();
    const key = await loadSecretKey({ ...embedded(dir), MAILVET_SECRET_KEY: HEX.toUpperCase() });
    assert.equal(key.toString('hex'), HEX);
    await assert.rejects(stat(join(dir, SECRET_KEY_FILE)), { code: 'ENOENT' });
  });

  it('refuses a damaged key file rather than replace it', async () => {
    const dir = freshDir();
    await loadSecretKey(embedded(dir));
    const path = join(dir, SECRET_KEY_FILE);
    await writeFile(path, 'not a key\n');
    await assert.rejects(loadSecretKey(embedded(dir)), ConfigError);
    assert.equal(await readFile(path, 'utf8'), 'not a key\n');
  });
});

describe('loadSecretKey, configuration errors', () => {
  it('a bad MAILVET_SECRET_KEY is a ConfigError, from the parser and from loadSecretKey', async () => {
    for (const bad of ['abc', 'a1'.repeat(31), 'a1'.repeat(33), 'zz'.repeat(32), `${HEX}\n00`]) {
      assert.throws(() => loadConfig({ MAILVET_SECRET_KEY: bad }), ConfigError, bad);
      await assert.rejects(loadSecretKey({ ...embedded(freshDir()), MAILVET_SECRET_KEY: bad }), ConfigError);
    }
    assert.equal(loadConfig({ MAILVET_SECRET_KEY: HEX }).MAILVET_SECRET_KEY, HEX);
  });

  it('scale-out requires MAILVET_SECRET_KEY, says so, and makes up no key', async () => {
    const dir = freshDir();
    const scaleOut = { ...embedded(dir), DATABASE_URL: 'postgres://db.example/mailvet' };
    await assert.rejects(loadSecretKey(scaleOut), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /MAILVET_SECRET_KEY/);
      assert.match(error.message, /DATABASE_URL/);
      return true;
    });
    await assert.rejects(stat(dir), { code: 'ENOENT' });
    const key = await loadSecretKey({ ...scaleOut, MAILVET_SECRET_KEY: HEX });
    assert.equal(key.toString('hex'), HEX);
  });

  it('takes the configuration as loadConfig parses it', async () => {
    const dir = freshDir();
    const key = await loadSecretKey(loadConfig({ MAILVET_DATA_DIR: dir }));
    assert.deepEqual(await loadSecretKey(loadConfig({ MAILVET_DATA_DIR: dir })), key);
  });
});

describe('deriveKey', () => {
  const secret = Buffer.from(HEX, 'hex');

  it('gives 32 bytes, the same for the same purpose, independent keys for others', () => {
    const webhooks = deriveKey(secret, 'webhooks');
    assert.equal(webhooks.length, 32);
    assert.deepEqual(deriveKey(secret, 'webhooks'), webhooks);
    assert.notDeepEqual(deriveKey(secret, 'sessions'), webhooks);
    assert.notDeepEqual(deriveKey(Buffer.alloc(32), 'webhooks'), webhooks);
    assert.notDeepEqual(webhooks, secret);
  });

  it('is stable across releases (stored credentials and sessions depend on it)', () => {
    // HKDF-SHA256(ikm = secret, salt = "mailvet", info = purpose, 32 bytes), computed apart from
    // node:crypto (RFC 5869 by hand with Python's hmac module).
    const expected = 'e4fa3c97d8f36e8cd2e6fddd0cb338eb1f02a24f1b510b70112d7b331358c070';
    assert.equal(deriveKey(secret, 'sessions').toString('hex'), expected);
  });

  it('refuses an empty purpose', () => {
    assert.throws(() => deriveKey(secret, ''), TypeError);
  });
});

/**
 * Starts `count` processes that each load the key from `dir` once told to go; when all are ready
 * (tsx loaded, module imported), tells them all at once. Resolves with each one's key, in hex.
 */
async function raceChildren(dir: string, count: number): Promise<string[]> {
  const moduleUrl = pathToFileURL(join(process.cwd(), 'src/adapters/secret-key.ts')).href;
  const code = `
    const { loadSecretKey } = await import(${JSON.stringify(moduleUrl)});
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    const key = await loadSecretKey({ MAILVET_DATA_DIR: ${JSON.stringify(dir)} });
    process.stdout.write(key.toString('hex') + '\\n');
  `;
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const state = { child, output: '', exit: once(child, 'exit') };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      state.output += chunk;
    });
    return state;
  });
  const deadline = Date.now() + 60_000; // a hang guard, not a timing assertion
  while (!children.every((c) => c.output.startsWith('ready\n'))) {
    if (Date.now() > deadline) throw new Error('a child process never got ready');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const c of children) c.child.stdin.end('go\n');
  const codes = await Promise.all(children.map((c) => c.exit));
  assert.deepEqual(
    codes.map(([code]) => code),
    children.map(() => 0),
  );
  return children.map((c) => c.output.slice('ready\n'.length).trim());
}
