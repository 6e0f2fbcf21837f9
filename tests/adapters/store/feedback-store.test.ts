/**
 * The feedback store's contract on SQLite, and on PostgreSQL when DATABASE_URL names one (skipped
 * with its reason otherwise, failed under CI), each in a database or schema of its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { requirePostgres } from '../../helpers/services.ts';
import { feedbackStoreContract } from './feedback-store-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'mailvet-feedback-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let freshCount = 0;

feedbackStoreContract({
  kind: 'sqlite',
  options: { dataDir: join(root, 'suite') },
  freshDatabase: () => Promise.resolve({ dataDir: join(root, `fresh-${freshCount++}`) }),
});

const postgres = await requirePostgres('PostgreSQL feedback store suite');
if (postgres.url === null) {
  test('PostgreSQL feedback store contract', (t) => t.skip(postgres.skipReason));
} else {
  const baseUrl = postgres.url;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const schemas: string[] = [];
  after(async () => {
    for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });
  const freshSchema = async (): Promise<StoreOptions> => {
    const schema = `mailvet_test_${randomBytes(6).toString('hex')}`;
    await admin.query(`create schema ${schema}`);
    schemas.push(schema);
    const url = new URL(baseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return { databaseUrl: url.toString(), dataDir: '/nonexistent/mailvet-data' };
  };
  feedbackStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
}
