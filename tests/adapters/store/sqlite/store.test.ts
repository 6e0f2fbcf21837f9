/**
 * The store contract on SQLite (embedded mode), plus what only the SQLite file setup promises.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { migrateOnly, openStore } from '../../../../src/adapters/store/open-store.ts';
import { runStoreContract } from '../run-store-contract.ts';
import { scheduleStoreContract } from '../schedule-store-contract.ts';
import { storeContract } from '../store-contract.ts';
import { ALL_MIGRATIONS } from '../store-fixtures.ts';

const root = mkdtempSync(join(tmpdir(), 'mailvet-sqlite-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let freshCount = 0;

storeContract({
  kind: 'sqlite',
  options: { dataDir: join(root, 'suite') },
  freshDatabase: () => Promise.resolve({ dataDir: join(root, `fresh-${freshCount++}`) }),
});
runStoreContract({
  kind: 'sqlite',
  options: { dataDir: join(root, 'runs') },
  freshDatabase: () => Promise.resolve({ dataDir: join(root, `fresh-${freshCount++}`) }),
});
scheduleStoreContract({
  kind: 'sqlite',
  options: { dataDir: join(root, 'schedules') },
  freshDatabase: () => Promise.resolve({ dataDir: join(root, `fresh-${freshCount++}`) }),
});

describe('SQLite store file', () => {
  it('creates the data directory and mailvet.db in WAL mode', async () => {
    const dataDir = join(root, 'made', 'on', 'demand');
    const store = await openStore({ dataDir, databaseUrl: undefined });
    await store.close();
    const file = join(dataDir, 'mailvet.db');
    assert.ok(existsSync(file));
    const raw = new Database(file, { readonly: true });
    try {
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      const tables = raw
        .prepare("select name from sqlite_master where type = 'table' order by name")
        .pluck()
        .all();
      for (const table of ['accounts', 'api_keys', 'usage']) assert.ok(tables.includes(table), table);
    } finally {
      raw.close();
    }
  });

  it('lists the migrations it applied, then none', async () => {
    const dataDir = join(root, 'migrate-only');
    assert.deepEqual(await migrateOnly({ dataDir }), ALL_MIGRATIONS);
    assert.deepEqual(await migrateOnly({ dataDir }), []);
  });

  it('takes an empty DATABASE_URL as unset, and refuses one for another database', async () => {
    const store = await openStore({ dataDir: join(root, 'empty-url'), databaseUrl: '  ' });
    assert.equal(store.kind, 'sqlite');
    await store.close();
    await assert.rejects(
      openStore({ dataDir: join(root, 'mysql'), databaseUrl: 'mysql://db/mailvet' }),
      /postgres/,
    );
    assert.equal(existsSync(join(root, 'mysql')), false);
  });
});
