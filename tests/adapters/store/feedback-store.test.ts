/**
 * The feedback store's contract on SQLite, and on PostgreSQL when DATABASE_URL names one (skipped
 * with its reason otherwise, failed under CI), each in a database or schema of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { schemaFactory } from '../../helpers/postgres-schemas.ts';
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
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  /** A new empty schema, and the store options that put the store in it. */
  const freshSchema = async (): Promise<StoreOptions> => ({
    databaseUrl: (await schemas.create()).url,
    dataDir: '/nonexistent/mailvet-data',
  });
  feedbackStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
}
