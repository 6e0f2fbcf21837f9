/**
 * PostgreSQL stores list results in the compact form of `result-codec.ts`, as SQLite has since
 * 0016: `list_addresses.result` becomes bytea. The results stored before keep their JSON, as its
 * UTF-8 bytes (the reader takes both). SQLite's column is a blob already: nothing changes there.
 *
 * The table also fills its pages to 60 % only. Each address is written three times (the upload, its
 * charge, its result); with full pages every later version moved to another page, so PostgreSQL
 * locked the old one, wrote the whole new one and a new index entry, each to the WAL. With room
 * left (a row of ~200 bytes becomes ~300 with its compact result), most updates stay on their page
 * (HOT: no index entry, only the changed bytes logged): a 100,000-row list job wrote 1.3 KB of WAL a
 * row instead of 1.7 KB (2.4 KB with JSON text), and its tables took 86 MB at the end, not 163.
 *
 * The change of type rewrites the table once, holding it locked meanwhile: on a large database,
 * run the upgrade while no list is being uploaded or run.
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { decodeResult } from '../result-codec.ts';

/** Rows converted back per statement by `down`. */
const DOWN_BATCH = 500;

function onSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** Turns PostgreSQL's result column into bytea. */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (onSqlite(db)) return;
  await sql`alter table list_addresses set (fillfactor = 60)`.execute(db);
  await sql`alter table list_addresses alter column result type bytea using convert_to(result, 'UTF8')`.execute(
    db,
  );
}

/** Back to JSON text: the compact results are decoded here (SQL cannot), then the type changes. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (onSqlite(db)) return;
  for (;;) {
    const { rows } = await sql<{ list_id: string; domain: string; address_key: string; result: Buffer }>`
      select list_id, domain, address_key, result from list_addresses
       where result is not null and get_byte(result, 0) <> ${'{'.charCodeAt(0)}
       limit ${DOWN_BATCH}`.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      await sql`update list_addresses set result = convert_to(${JSON.stringify(decodeResult(row.result))}, 'UTF8')
         where list_id = ${row.list_id} and domain = ${row.domain} and address_key = ${row.address_key}`.execute(
        db,
      );
    }
  }
  await sql`alter table list_addresses alter column result type text using convert_from(result, 'UTF8')`.execute(
    db,
  );
}
