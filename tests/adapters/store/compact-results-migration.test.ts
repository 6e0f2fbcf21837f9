/**
 * Upgrading to compact results on PostgreSQL (migration 0020): results stored as JSON text by the
 * previous release read back unchanged (accents, quotes and backslashes included), results saved
 * or deferred from then on are stored in the compact form, and on PostgreSQL the column is bytea
 * and the table leaves room on each page for a row's later versions. Going back down (PostgreSQL)
 * turns every result, old and new, into JSON text again. On SQLite, and on PostgreSQL when
 * DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { migrationProviderFor } from '../../../src/adapters/store/migrations/index.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { createPostgresDatabase } from '../../../src/adapters/store/postgres/database.ts';
import { withOwnSchemaIntrospection } from '../../../src/adapters/store/postgres/own-schema-introspection.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { createSqliteDatabase } from '../../../src/adapters/store/sqlite/database.ts';
import type { VerificationResult } from '../../../src/verification/report.ts';
import { verificationResult } from './list-store-contract.ts';
import { migrateToRelease, seedAccountWithKey, upgradeTests } from './previous-release.ts';

const PREVIOUS_RELEASE = '0019-hubspot-watches';
const AT = '2026-03-04T05:06:07.089Z';

/** A result whose JSON holds what a careless conversion would mangle. */
function oldResult(): VerificationResult {
  const base = verificationResult('zoë@a.test', 'INVALID');
  return {
    ...base,
    evidence: {
      ...base.evidence,
      smtp_reply: { code: 550, enhanced_code: '5.1.1', message: 'Boîte "zoë" inconnue \\ C:\\mail\\users' },
    },
  };
}

async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<void> {
  await migrateToRelease(db, PREVIOUS_RELEASE, schema);
  await seedAccountWithKey(db, AT);
  await sql`INSERT INTO lists (id, account_id, api_key_id, name, state, source, total_rows, unique_addresses,
      processed_rows, processed_addresses, count_invalid, created_at, updated_at, started_at)
    VALUES ('lst_old', 'acct', 'key', 'Old', 'running', 'json', 3, 3, 1, 1, 1, ${AT}, ${AT}, ${AT})`.execute(
    db,
  );
  const addresses = ['zoë@a.test', 'new@a.test', 'later@a.test'];
  for (const [index, key] of addresses.entries()) {
    const done = index === 0;
    await sql`INSERT INTO list_rows (list_id, row_number, email, domain, address_key, fields)
      VALUES ('lst_old', ${index + 1}, ${key}, 'a.test', ${key}, null)`.execute(db);
    await sql`INSERT INTO list_addresses (list_id, address_key, first_row, email, domain, row_count, charged,
        charged_month, done, status, result)
      VALUES ('lst_old', ${key}, ${index + 1}, ${key}, 'a.test', 1, 1, '2026-03', ${done ? 1 : 0},
        ${done ? 'INVALID' : null}, ${done ? JSON.stringify(oldResult()) : null})`.execute(db);
  }
}

/** The database under `options`, opened directly (as the store does, without the store). */
function rawDatabase(options: StoreOptions): Kysely<DatabaseSchema> {
  return options.databaseUrl === undefined
    ? createSqliteDatabase(`${options.dataDir}/mailvet.db`).db
    : createPostgresDatabase(options.databaseUrl);
}

async function storedResults(db: Kysely<DatabaseSchema>): Promise<Map<string, string | Uint8Array | null>> {
  const rows = await db
    .selectFrom('list_addresses')
    .select(['address_key', 'result'])
    .where('list_id', '=', 'lst_old')
    .execute();
  return new Map(rows.map((row) => [row.address_key, row.result]));
}

async function checkUpgrade(options: StoreOptions): Promise<void> {
  const store = await openStore({ ...options, plans: BUILT_IN_PLANS });
  const saved = verificationResult('new@a.test', 'VALID');
  const deferred = verificationResult('later@a.test', 'PROBABLY_VALID', { reason: 'greylisted' });
  try {
    const { lists } = store;
    assert.deepEqual((await lists.resultRows('lst_old', 0, 1))[0]?.result, oldResult());
    await lists.saveResults('lst_old', [{ addressKey: 'new@a.test', result: saved }]);
    await lists.deferAddresses('lst_old', [
      { addressKey: 'later@a.test', result: deferred, retryAt: new Date(AT) },
    ]);
    assert.deepEqual((await lists.resultRows('lst_old', 1, 1))[0]?.result, saved);
  } finally {
    await store.close();
  }

  const db = rawDatabase(options);
  try {
    const stored = await storedResults(db);
    for (const key of ['new@a.test', 'later@a.test']) {
      const bytes = stored.get(key);
      assert.ok(bytes instanceof Uint8Array, `${key}: stored as bytes`);
      assert.equal(bytes[0], 1, `${key}: in the compact form of dictionary 1`);
    }
    if (options.databaseUrl === undefined) return;

    const { rows } = await sql<{ type: string; options: string[] | null }>`
      select format_type(a.atttypid, a.atttypmod) as type, c.reloptions as options
        from pg_attribute a join pg_class c on c.oid = a.attrelid
       where c.oid = 'list_addresses'::regclass and a.attname = 'result'`.execute(db);
    assert.deepEqual(rows, [{ type: 'bytea', options: ['fillfactor=60'] }]);

    // Down again: every result is JSON text, the compact ones decoded.
    const schema = new URL(options.databaseUrl).searchParams.get('options')!.split('=')[1]!;
    const migrator = new Migrator({
      db: withOwnSchemaIntrospection(db, schema),
      provider: migrationProviderFor(BUILT_IN_PLANS),
      migrationTableSchema: schema,
    });
    const { error } = await migrator.migrateTo(PREVIOUS_RELEASE);
    if (error) throw error;
    const back = await storedResults(db);
    assert.deepEqual(JSON.parse(back.get('zoë@a.test') as string), oldResult());
    assert.deepEqual(JSON.parse(back.get('new@a.test') as string), saved);
    assert.deepEqual(JSON.parse(back.get('later@a.test') as string), deferred);
  } finally {
    await db.destroy();
  }
}

describe('migration 0020: results stored before read as they were, new ones compact', () =>
  upgradeTests(seedPreviousRelease, checkUpgrade));
