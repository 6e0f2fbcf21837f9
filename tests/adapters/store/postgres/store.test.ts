/**
 * The store contract on PostgreSQL (scale-out). Needs DATABASE_URL; skips without it, except under
 * CI. Each run works in schemas of its own (`mailvet_test_<random>`, chosen by search_path in the
 * connection URL) and drops them at the end, so runs may overlap on one server.
 */
import { after, test } from 'node:test';
import type { StoreOptions } from '../../../../src/adapters/store/open-store.ts';
import { schemaFactory } from '../../../helpers/postgres-schemas.ts';
import { requirePostgres } from '../../../helpers/services.ts';
import { runStoreContract } from '../run-store-contract.ts';
import { scheduleStoreContract } from '../schedule-store-contract.ts';
import { storeContract } from '../store-contract.ts';

const postgres = await requirePostgres('PostgreSQL store suite');

if (postgres.url === null) {
  test('PostgreSQL store contract', (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  /** A new empty schema, and the store options that put the store in it. */
  const freshSchema = async (): Promise<StoreOptions> => ({
    databaseUrl: (await schemas.create()).url,
    dataDir: '/nonexistent/mailvet-data',
  });

  storeContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
  runStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
  scheduleStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
}
