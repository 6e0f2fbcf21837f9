/**
 * The PostgreSQL dialect (scale-out): a pg connection pool shared by one Kysely instance.
 *
 * Every wait is bounded: a request must get an answer, a 5xx at worst, when the
 * database is down or unreachable, never hang. Getting a connection (including waiting for a free
 * one in the pool) gives up after CONNECT_TIMEOUT_MS; the server cancels a statement after
 * STATEMENT_TIMEOUT_MS; and the client abandons a query after QUERY_TIMEOUT_MS, which is what
 * bounds a network that silently drops packets (no reply, no reset).
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from '../schema.ts';

/** Connections per process by default: enough for concurrent requests to race on the usage rows. */
const DEFAULT_POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 2_000;
/** Above every query Mailvet makes (and the migration lock wait), far below an HTTP client's patience. */
const STATEMENT_TIMEOUT_MS = 5_000;
/** A little above the server's own limit, so a live server reports its cancel first. */
const QUERY_TIMEOUT_MS = 6_000;
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
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    // Lets the kernel notice a peer that vanished while a connection sits idle in the pool.
    keepAlive: true,
    types,
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process: the
  // pool discards it, and the next query opens a new one or reports the failure itself.
  pool.on('error', () => {});
  pool.on('connect', dropOnQueryTimeout);
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * After a client-side query timeout the connection still waits for the abandoned query's reply,
 * so every later query on it would time out too. Close it instead: the pool then discards it and
 * opens a fresh one for the next request, which is how the store recovers by itself.
 */
function dropOnQueryTimeout(client: pg.PoolClient): void {
  // The pool listens for errors only on idle clients; one closed here while checked out would
  // otherwise emit an unhandled 'error' and end the process. Its failed query already reports it.
  client.on('error', () => {});
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const destroy = (): void => {
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.then(undefined, (error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') destroy();
      });
    }
    return result;
  };
}
