/**
 * The one place that picks the store's backend from configuration: PostgreSQL when
 * `DATABASE_URL` is a postgres URL, else SQLite in the data directory. Migrations run first.
 */
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { BUILT_IN_PLANS, type Plan } from '../../accounts/plans.ts';
import type { Store } from '../../store.ts';
import { migratePostgres, migrateSqlite } from './migrate-to-latest.ts';
import type { DatabaseSchema } from './schema.ts';
import { switchToIncrementalVacuum } from './sqlite/auto-vacuum.ts';
import { createSqliteDatabase } from './sqlite/database.ts';
import { createPrivateFile, preparePrivateDir } from './sqlite/private-files.ts';
import { SqliteStore } from './sqlite/store.ts';

/** Where the store lives: `DATABASE_URL` and `MAILVET_DATA_DIR`. */
export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /**
   * PostgreSQL connections per process (default 10). Processes times pool size must stay under
   * the server's `max_connections` (100 by default).
   */
  poolSize?: number | undefined;
  /** The plans in force (MAILVET_PLANS), for migrations that move figures; built-in ones by default. */
  plans?: Readonly<Record<string, Plan>>;
  /** The retired MAILVET_OPERATORS, for the migration that marks those users operators once. */
  operators?: readonly string[];
  /**
   * SQLite: checkpoint the WAL on a thread of its own once writes are busy (a server or worker);
   * a short command keeps SQLite's own checkpoints.
   */
  backgroundCheckpoints?: boolean;
}

interface Connected {
  db: Kysely<DatabaseSchema>;
  kind: Store['kind'];
  migrate(): Promise<string[]>;
  /** The store on this connection, once migrated. */
  store(): Promise<Store>;
}

/** Opens the store and applies pending migrations (under a lock) before returning it. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const connected = await connect(options);
  try {
    await connected.migrate();
  } catch (error) {
    await connected.db.destroy();
    throw error;
  }
  return connected.store();
}

/** Applies pending migrations and closes the connection (`mailvet migrate`); returns their names. */
export async function migrateOnly(options: StoreOptions): Promise<string[]> {
  const connected = await connect(options);
  try {
    return await connected.migrate();
  } finally {
    await connected.db.destroy();
  }
}

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(?:ql)?:\/\//i.test(url);
}

async function connect(options: StoreOptions): Promise<Connected> {
  const inputs = { plans: options.plans ?? BUILT_IN_PLANS, operators: options.operators ?? [] };
  const url = options.databaseUrl?.trim() ?? '';
  if (isPostgresUrl(url)) {
    // Loaded only for PostgreSQL: an embedded process never pays for pg (start-up, memory).
    const [{ createPostgresDatabase }, { PostgresStore }] = await Promise.all([
      import('./postgres/database.ts'),
      import('./postgres/store.ts'),
    ]);
    const db = createPostgresDatabase(url, options.poolSize);
    return {
      db,
      kind: 'postgres',
      migrate: () => migratePostgres(db, inputs),
      store: async () => new PostgresStore(db),
    };
  }
  // A DATABASE_URL for another database must not quietly fall back to a local SQLite file: in
  // scale-out every process would keep its own quota counts.
  if (url !== '') throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  preparePrivateDir(options.dataDir);
  const file = join(options.dataDir, 'mailvet.db');
  createPrivateFile(file);
  const { db, connection } = createSqliteDatabase(file);
  return {
    db,
    kind: 'sqlite',
    migrate: async () => {
      const applied = await migrateSqlite(db, file, inputs);
      // Outside the migrations' transaction, which a VACUUM cannot run in.
      switchToIncrementalVacuum(await connection, file);
      return applied;
    },
    store: async () =>
      new SqliteStore(db, await connection, {
        backgroundCheckpoints: options.backgroundCheckpoints ?? false,
      }),
  };
}
