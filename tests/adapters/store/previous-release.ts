/**
 * Upgrade tests' databases: a fresh SQLite file, or a fresh schema on the PostgreSQL server of
 * DATABASE_URL, seeded as the previous release left it and then opened by this release's store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { migrationProviderFor } from '../../../src/adapters/store/migrations/index.ts';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { createPostgresDatabase } from '../../../src/adapters/store/postgres/database.ts';
import { withOwnSchemaIntrospection } from '../../../src/adapters/store/postgres/own-schema-introspection.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { createSqliteDatabase } from '../../../src/adapters/store/sqlite/database.ts';
import { requirePostgres } from '../../helpers/services.ts';

/** Seeds a database as the previous release made it (`schema`: PostgreSQL's, when on PostgreSQL). */
export type Seed<T> = (db: Kysely<DatabaseSchema>, schema?: string) => Promise<T>;

/** One upgrade test per backend: seed with the previous release, then check with this one's store. */
export function upgradeTests<T>(
  seed: Seed<T>,
  check: (options: StoreOptions, old: T) => Promise<void>,
): void {
  test('SQLite database of the previous release', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-upgrade-'));
    try {
      const { db } = createSqliteDatabase(join(dataDir, 'mailvet.db'));
      const old = await seed(db);
      await db.destroy();
      await check({ dataDir }, old);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL database of the previous release', async (t) => {
    const postgres = await requirePostgres('PostgreSQL upgrade test');
    if (postgres.url === null) return t.skip(postgres.skipReason);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const schema = `mailvet_upgrade_${randomBytes(6).toString('hex')}`;
    await admin.query(`create schema ${schema}`);
    after(async () => {
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    });
    const url = new URL(postgres.url);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const db = createPostgresDatabase(url.toString());
    const old = await seed(db, schema);
    await db.destroy();
    await check({ databaseUrl: url.toString(), dataDir: '/nonexistent' }, old);
  });
}

/** Applies the migrations up to `release` (its name), as that release left a database. */
export async function migrateToRelease(
  db: Kysely<DatabaseSchema>,
  release: string,
  schema?: string,
): Promise<void> {
  const migrator = new Migrator({
    db: schema === undefined ? db : withOwnSchemaIntrospection(db, schema),
    provider: migrationProviderFor(BUILT_IN_PLANS),
    migrationTableSchema: schema,
  });
  const { error } = await migrator.migrateTo(release);
  if (error) throw error;
}

/** The account `acct` and its key `key` (plan pro), as an earlier release stored them at `at`. */
export async function seedAccountWithKey(db: Kysely<DatabaseSchema>, at: string): Promise<void> {
  await sql`INSERT INTO accounts (id, name, created_at) VALUES ('acct', 'Before', ${at})`.execute(db);
  await sql`INSERT INTO api_keys (id, account_id, name, plan, key_hash, display_prefix, created_at)
    VALUES ('key', 'acct', 'k', 'pro', 'hash', 'mv_live_x', ${at})`.execute(db);
}
