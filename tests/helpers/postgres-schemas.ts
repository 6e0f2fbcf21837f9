/**
 * Schemas of a test run's own on a PostgreSQL server (`mailvet_test_<random>`), chosen by
 * search_path in the connection URL, so suites and runs never meet; dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Schemas of this run's own on the PostgreSQL server at `baseUrl`; `dropAll()` removes them. */
export function schemaFactory(baseUrl: string): {
  /** A new empty schema; returns its name and a URL whose connections use it. */
  create(): Promise<{ schema: string; url: string }>;
  dropAll(): Promise<void>;
} {
  const schemas: string[] = [];
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    async create() {
      const schema = `mailvet_test_${randomBytes(6).toString('hex')}`;
      await admin((client) => client.query(`create schema ${schema}`));
      schemas.push(schema);
      return { schema, url: withSearchPath(baseUrl, schema) };
    },
    async dropAll() {
      await admin(async (client) => {
        for (const schema of schemas.splice(0)) await client.query(`drop schema if exists ${schema} cascade`);
      });
    },
  };
}

/** `url` with its connections' search_path set to `schema`. */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}
