/**
 * Applies pending migrations with Kysely's Migrator, under a lock that holds across processes, so
 * several `mailvet serve` / `worker` processes may start at once.
 *
 * PostgreSQL: the Migrator's PostgresAdapter takes a session advisory lock (`pg_advisory_lock`)
 * and applies the migrations in one transaction; that is enough. Its table checks look at our own
 * schema only (other schemas on a shared server may vanish mid-scan).
 * SQLite: the Migrator's SqliteAdapter lock is a no-op (it only guards the one connection of one
 * Kysely instance) and it runs without a transaction, so two processes would both apply 0001.
 * Here the whole run is wrapped in `BEGIN IMMEDIATE`, which takes the file's write lock (other
 * processes wait through the busy timeout) and makes the run all-or-nothing.
 */
import { resolve } from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import type { Plan } from '../../accounts/plans.ts';
import { migrationProviderFor } from './migrations/index.ts';
import { withOwnSchemaIntrospection } from './postgres/own-schema-introspection.ts';
import type { DatabaseSchema } from './schema.ts';

/**
 * What some migrations compute with: the plans in force (a migration that moves figures between
 * tables), and the operators' emails of the retired MAILVET_OPERATORS (marked once on their users).
 */
export interface MigrationInputs {
  plans: Readonly<Record<string, Plan>>;
  operators: readonly string[];
}

/** Migrates a PostgreSQL database; returns the names applied by this call. */
export async function migratePostgres(
  db: Kysely<DatabaseSchema>,
  inputs: MigrationInputs,
): Promise<string[]> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema === null || schema === undefined) {
    throw new Error('PostgreSQL: the search_path names no existing schema to migrate');
  }
  // The Migrator looks for its own tables in every visible schema unless told which one; a
  // `kysely_migration` table in another schema of the same database would fool it. And it must not
  // scan the other schemas at all: one dropped mid-scan would fail our start-up.
  return runMigrator(withOwnSchemaIntrospection(db, schema), inputs, schema);
}

/** Migrates the SQLite database at `file`; returns the names applied by this call. */
export function migrateSqlite(
  db: Kysely<DatabaseSchema>,
  file: string,
  inputs: MigrationInputs,
): Promise<string[]> {
  // better-sqlite3 waits for a lock synchronously: two instances in this process waiting on each
  // other across an `await` would block the thread until the busy timeout. Queue them instead.
  return oneAtATime(resolve(file), () =>
    db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const applied = await runMigrator(connection, inputs);
        await sql`commit`.execute(connection);
        return applied;
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
    }),
  );
}

async function runMigrator(
  db: Kysely<DatabaseSchema>,
  { plans, operators }: MigrationInputs,
  migrationTableSchema?: string,
): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: migrationProviderFor(plans, operators),
    migrationTableSchema,
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed ?? '(setup)'} failed: ${reason}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

const queues = new Map<string, Promise<unknown>>();

async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const current = previous.then(work, work);
  const settled = current.catch(() => {});
  queues.set(key, settled);
  try {
    return await current;
  } finally {
    if (queues.get(key) === settled) queues.delete(key);
  }
}
