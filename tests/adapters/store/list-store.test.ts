/**
 * The list store contract on both backends: SQLite in a temporary directory, and PostgreSQL when
 * DATABASE_URL is set (skipped without it, except under CI) in a schema of its own
 * (`mailvet_test_<random>`, chosen by search_path in the connection URL), dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { requirePostgres } from '../../helpers/services.ts';
import { listStoreContract } from './list-store-contract.ts';

// SQLite: the store's file in a temporary directory, and a connection of our own for direct SQL.
const root = mkdtempSync(join(tmpdir(), 'mailvet-list-store-'));
const dataDir = join(root, 'suite');
let raw: Database.Database | undefined;
after(() => {
  raw?.close();
  rmSync(root, { recursive: true, force: true });
});

listStoreContract({
  kind: 'sqlite',
  options: { dataDir },
  query: async (sql) => {
    // Opened on first use: by then the suite's store has made and migrated the file.
    raw ??= new Database(join(dataDir, 'mailvet.db'), { timeout: 5_000 });
    const statement = raw.prepare(sql);
    if (statement.reader) return statement.all() as Array<Record<string, unknown>>;
    statement.run();
    return [];
  },
});

const postgres = await requirePostgres('PostgreSQL list store suite');

if (postgres.url === null) {
  test('PostgreSQL list store contract', (t) => t.skip(postgres.skipReason));
} else {
  const schema = `mailvet_test_${randomBytes(6).toString('hex')}`;
  // One client makes and drops the schema, and runs the suite's direct SQL inside it.
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.query(`set search_path to ${schema}`);
  after(async () => {
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });
  const url = new URL(postgres.url);
  url.searchParams.set('options', `-c search_path=${schema}`);

  listStoreContract({
    kind: 'postgres',
    options: { databaseUrl: url.toString(), dataDir: '/nonexistent/mailvet-data' },
    query: async (sql) => (await client.query(sql)).rows as Array<Record<string, unknown>>,
  });
}
