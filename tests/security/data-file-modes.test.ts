/**
 * Another user of the machine must not read the embedded database or the secret key: the data
 * directory is created 0700, the database, its -wal/-shm files and the secret key 0600, whatever
 * the umask; an operator's existing directory open to others is reported at start, not changed.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';

const scratch = await mkdtemp(join(tmpdir(), 'mailvet-modes-'));
after(() => rm(scratch, { recursive: true, force: true }));

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

test('a new data directory is 0700 and its database files 0600, with a permissive umask', async () => {
  const previous = process.umask(0o022);
  try {
    const dataDir = join(scratch, 'fresh', 'data');
    const store = await openStore({ dataDir });
    await store.createAccount({ name: 'writes, so the WAL and shared-memory files exist', plan: 'free' });
    assert.equal(await modeOf(dataDir), 0o700);
    for (const name of ['mailvet.db', 'mailvet.db-wal', 'mailvet.db-shm']) {
      assert.equal(await modeOf(join(dataDir, name)), 0o600, name);
    }
    await store.close();
  } finally {
    process.umask(previous);
  }
});

test('start-up writes the secret key 0600 and warns about an existing directory open to others', async () => {
  const dataDir = join(scratch, 'operator');
  await mkdir(dataDir);
  await chmod(dataDir, 0o755);
  const warnings: string[] = [];
  const services = await createServices(
    loadConfig({
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_DNS_SERVERS: '127.0.0.1:9',
    }),
    // The process's logger, as `mailvet serve` has it: warnings are its `warn` lines.
    {
      log: createLogger({ level: 'warn', stream: { write: (line) => warnings.push(JSON.parse(line).msg) } }),
    },
  );
  try {
    assert.equal(await modeOf(join(dataDir, 'secret.key')), 0o600);
    assert.equal(await modeOf(join(dataDir, 'mailvet.db')), 0o600);
    const aboutDir = warnings.filter((warning) => warning.startsWith(`${dataDir} is open to other users`));
    assert.equal(aboutDir.length, 1, warnings.join('\n'));
    assert.match(aboutDir[0] ?? '', /mode 755\): chmod 700/);
    // The operator's directory is reported, not changed behind their back.
    assert.equal(await modeOf(dataDir), 0o755);
  } finally {
    await services.close();
  }
});
