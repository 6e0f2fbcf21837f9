/**
 * The audit log's contract on SQLite, and on PostgreSQL when DATABASE_URL names one (skipped with
 * its reason otherwise, failed under CI), each in a database or schema of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { schemaFactory } from '../../helpers/postgres-schemas.ts';
import { requirePostgres } from '../../helpers/services.ts';
import { auditStoreContract } from './audit-store-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'mailvet-audit-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let freshCount = 0;

auditStoreContract({
  kind: 'sqlite',
  options: { dataDir: join(root, 'suite') },
  freshDatabase: () => Promise.resolve({ dataDir: join(root, `fresh-${freshCount++}`) }),
});

const postgres = await requirePostgres('PostgreSQL audit log suite');
if (postgres.url === null) {
  test('PostgreSQL audit log contract', (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  const freshSchema = async (): Promise<StoreOptions> => ({
    databaseUrl: (await schemas.create()).url,
    dataDir: '/nonexistent/mailvet-data',
  });
  auditStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
}
