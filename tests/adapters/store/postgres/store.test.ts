/**
 * The store contract on PostgreSQL (scale-out). Needs DATABASE_URL; skips without it, except under
 * CI. Each run works in schemas of its own (`mailvet_test_<random>`, chosen by search_path in the
 * connection URL) and drops them at the end, so runs may overlap on one server.
 */
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import pg from 'pg';
import type { StoreOptions } from '../../../../src/adapters/store/open-store.ts';
import { requirePostgres } from '../../../helpers/services.ts';
import { runStoreContract } from '../run-store-contract.ts';
import { scheduleStoreContract } from '../schedule-store-contract.ts';
import { storeContract } from '../store-contract.ts';

const postgres = await requirePostgres('PostgreSQL store suite');

if (postgres.url === null) {
  test('PostgreSQL store contract', (t) => t.skip(postgres.skipReason));
} else {
  const baseUrl = postgres.url;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const schemas: string[] = [];
  after(async () => {
    for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  /** A new empty schema, and the store options that put the store in it. */
  const freshSchema = async (): Promise<StoreOptions> => {
    const schema = `mailvet_test_${randomBytes(6).toString('hex')}`;
    await admin.query(`create schema ${schema}`);
    schemas.push(schema);
    const url = new URL(baseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return { databaseUrl: url.toString(), dataDir: '/nonexistent/mailvet-data' };
  };

  storeContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
  runStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
  scheduleStoreContract({ kind: 'postgres', options: await freshSchema(), freshDatabase: freshSchema });
}
