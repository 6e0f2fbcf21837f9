/**
 * The PostgreSQL dialect (scale-out): a pg connection pool shared by one Kysely instance.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from '../schema.ts';

/** Connections per process by default: enough for concurrent requests to race on the usage rows. */
const DEFAULT_POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 5_000;
const INT8_OID = 20;

/**
 * Quotas and counters are `bigint` columns; pg returns int8 as a string by default. Plans cap them
 * at 2^53, so a number is exact. Set per pool, not on pg's global parsers, to leave other users be.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A Kysely database on the PostgreSQL server at `connectionString` (`postgres://...`). */
export function createPostgresDatabase(
  connectionString: string,
  poolSize: number = DEFAULT_POOL_SIZE,
): Kysely<DatabaseSchema> {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process: the
  // pool discards it, and the next query opens a new one or reports the failure itself.
  pool.on('error', () => {});
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}
