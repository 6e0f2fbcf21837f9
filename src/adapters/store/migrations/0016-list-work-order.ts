/**
 * A list's addresses stored in the order the runner works through them: by domain, then address.
 *
 * The runner charges and saves addresses domain by domain; with the addresses stored in upload
 * order, every charge and every saved result rewrote a page of its own somewhere in the table, and
 * the list job wrote tens of kilobytes to storage per address. Keyed by (list, domain, address) —
 * on SQLite a WITHOUT ROWID table, so the key is where the row lives — one batch of charges or
 * results touches a few neighbouring pages instead.
 *
 * - The index walked by pending addresses (list, done, domain, first row) goes: the key is now that
 *   walk, and flipping `done` no longer moves an index entry on every save.
 * - Every lookup of an address names its domain too (read back from its key, `domainOfKey`), so
 *   it is a lookup by the key: an index on (list, address) alone, filled in random order at every
 *   upload, was most of what an upload wrote. `list_rows` keeps its address's domain for the same
 *   reason (the results' join), copied here from the addresses of the lists already stored.
 * - Re-checks waiting (`retry_at` set) are found through a partial index holding only those.
 * - On SQLite `list_rows` becomes WITHOUT ROWID too: its key (list, row number) was stored twice,
 *   in the table and in the index behind the primary key.
 *
 * Existing rows are copied as they are (a stored result may be JSON text or, from now on, the
 * compact form: the reader takes both).
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';

const ADDRESS_COLUMNS = [
  'list_id',
  'domain',
  'address_key',
  'first_row',
  'email',
  'row_count',
  'charged',
  'charged_month',
  'done',
  'attempts',
  'retry_at',
  'status',
  'result',
] as const;

/** Rebuilds `list_addresses` (and on SQLite `list_rows`) keyed in work order. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema.dropIndex('list_addresses_pending_idx').execute();
  if (sqlite) {
    await rebuildSqliteTables(db);
  } else {
    await db.schema
      .alterTable('list_rows')
      .addColumn('domain', 'text', (col) => col.notNull().defaultTo(''))
      .execute();
    await sql`update list_rows r set domain = a.domain from list_addresses a
      where a.list_id = r.list_id and a.address_key = r.address_key`.execute(db);
    await sql`alter table list_addresses drop constraint list_addresses_pk`.execute(db);
    await sql`alter table list_addresses add constraint list_addresses_pk primary key (list_id, domain, address_key)`.execute(
      db,
    );
  }
  await db.schema
    .createIndex('list_addresses_recheck_idx')
    .on('list_addresses')
    .columns(['list_id', 'retry_at'])
    .where(sql.ref('retry_at'), 'is not', null)
    .execute();
}

async function rebuildSqliteTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('list_addresses_by_domain')
    .addColumn('list_id', 'text', (col) => col.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('address_key', 'text', (col) => col.notNull())
    .addColumn('first_row', 'bigint', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('row_count', 'bigint', (col) => col.notNull())
    .addColumn('charged', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('charged_month', 'text')
    .addColumn('done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('retry_at', 'text')
    .addColumn('status', 'text')
    // JSON text, or the compact form (a blob): see result-codec.ts.
    .addColumn('result', 'blob')
    .addPrimaryKeyConstraint('list_addresses_pk', ['list_id', 'domain', 'address_key'])
    .modifyEnd(sql`without rowid`)
    .execute();
  const columns = sql.join(ADDRESS_COLUMNS.map((column) => sql.ref(column)));
  await sql`insert into list_addresses_by_domain (${columns}) select ${columns} from list_addresses order by list_id, domain, address_key`.execute(
    db,
  );

  await db.schema
    .createTable('list_rows_by_number')
    .addColumn('list_id', 'text', (col) => col.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('row_number', 'bigint', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('address_key', 'text', (col) => col.notNull())
    .addColumn('fields', 'text')
    .addPrimaryKeyConstraint('list_rows_pk', ['list_id', 'row_number'])
    .modifyEnd(sql`without rowid`)
    .execute();
  // The old key (list, address) finds each row's domain, before that index goes with its table.
  await sql`insert into list_rows_by_number
    select r.list_id, r.row_number, r.email, coalesce(a.domain, ''), r.address_key, r.fields
      from list_rows r left join list_addresses a on a.list_id = r.list_id and a.address_key = r.address_key
     order by r.list_id, r.row_number`.execute(db);
  await db.schema.dropTable('list_rows').execute();
  await db.schema.alterTable('list_rows_by_number').renameTo('list_rows').execute();
  await db.schema.dropTable('list_addresses').execute();
  await db.schema.alterTable('list_addresses_by_domain').renameTo('list_addresses').execute();
}

/** Keeps the new tables; only the indexes go back to what 0002 made. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('list_addresses_recheck_idx').execute();
  await db.schema
    .createIndex('list_addresses_pending_idx')
    .on('list_addresses')
    .columns(['list_id', 'done', 'domain', 'first_row'])
    .execute();
}
