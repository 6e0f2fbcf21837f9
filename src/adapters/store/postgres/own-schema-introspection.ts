/**
 * Kysely's Migrator asks the introspector whether its tables exist, and Kysely's PostgreSQL
 * introspector reads every schema of the database, calling `has_schema_privilege` on each. On a
 * shared server a schema dropped by someone else during that scan fails our start-up with
 * `schema "…" does not exist`. This introspector answers from our schema alone, with plain
 * catalogue reads that call no function on other schemas' names.
 */
import { type DatabaseIntrospector, type Kysely, sql, type TableMetadata } from 'kysely';

/** `db`, but whose `introspection` sees only `schema`. */
export function withOwnSchemaIntrospection<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspection: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`
        select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
      return rows;
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; kind: string }>`
        select c.relname as name, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(db);
      // The Migrator only asks whether its tables exist: names are enough.
      return rows.map((row) => ({ name: row.name, schema, isView: row.kind === 'v', columns: [] }));
    },
    async getMetadata() {
      return { tables: await this.getTables() };
    },
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      // Kysely keeps its state in private fields: its methods must run on the real instance.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
