/**
 * The SQLite dialect (embedded mode): one better-sqlite3 connection per Kysely instance.
 */
import { setTimeout } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseSchema } from '../schema.ts';
import { incrementalOnNewFile } from './auto-vacuum.ts';

/** How long a writer waits for another connection's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** A Kysely database on the SQLite file (created when missing): WAL, busy timeout, foreign keys. */
export function createSqliteDatabase(file: string): SqliteDatabase {
  let opened: (connection: Database.Database) => void = () => {};
  const connection = new Promise<Database.Database>((resolve) => {
    opened = resolve;
  });
  const db = new Kysely<DatabaseSchema>({
    dialect: new SqliteDialect({
      database: async () => {
        const open = await openConnection(file);
        opened(open);
        return open;
      },
    }),
  });
  return { db, connection };
}

/** The Kysely database and, once its first query has opened it, the one connection underneath. */
export interface SqliteDatabase {
  db: Kysely<DatabaseSchema>;
  connection: Promise<Database.Database>;
}

async function openConnection(file: string): Promise<Database.Database> {
  // `timeout` is the busy timeout, in force from the first statement on.
  const connection = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // Before the first table, so freed pages are reusable from the start (auto-vacuum.ts).
    incrementalOnNewFile(connection);
    // WAL lets readers run beside the one writer, and other processes (`mailvet keys`) share the file.
    await switchToWal(connection);
    // In WAL mode NORMAL stays consistent after a crash; it only may lose the last commits on power loss.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    return withStatementCache(connection);
  } catch (error) {
    connection.close();
    throw error;
  }
}

/**
 * Processes opening a fresh file at once may each hold a shared lock while asking for the
 * exclusive one the switch needs; SQLite then fails one at once with SQLITE_BUSY, without the busy
 * handler (it would wait forever). Backing off and retrying resolves it; the file stays WAL after.
 */
async function switchToWal(connection: Database.Database): Promise<void> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      connection.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
      if (!busy || Date.now() >= deadline) throw error;
      await setTimeout(5 + Math.random() * 20);
    }
  }
}

/** Prepared statements kept per SQL text: Kysely prepares on every query, which costs ~20 µs. */
const STATEMENT_CACHE_SIZE = 500;

function withStatementCache(connection: Database.Database): Database.Database {
  const statements = new Map<string, Database.Statement>();
  const prepare = connection.prepare.bind(connection);
  // The store never streams (iterate), so a cached statement is never busy when used again.
  connection.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }) as typeof connection.prepare;
  return connection;
}
