/**
 * Uploads keep PostgreSQL's statistics of the list tables fresh enough to plan by, without an
 * ANALYZE of two large shared tables at every upload: the first upload gathers them, an upload that
 * grows a table by a tenth or less of what they count leaves them, a larger one gathers them again.
 * Read off `pg_class.reltuples`, which ANALYZE sets (exactly, on tables this small). Needs
 * DATABASE_URL; skips without it, except under CI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openStore } from '../../../../src/adapters/store/open-store.ts';
import type { UploadedRow } from '../../../../src/lists/ports.ts';
import type { Store } from '../../../../src/store.ts';
import { addUploadRows } from '../../../helpers/list-upload.ts';
import { schemaFactory } from '../../../helpers/postgres-schemas.ts';
import { requirePostgres } from '../../../helpers/services.ts';
import { createKey } from '../store-fixtures.ts';

const postgres = await requirePostgres('PostgreSQL list statistics');

describe('statistics of the list tables after an upload', { skip: postgres.skipReason ?? false }, () => {
  const schemas = schemaFactory(postgres.url ?? '');
  let store: Store;
  let client: pg.Client;
  let uploads = 0;

  before(async () => {
    const { url } = await schemas.create();
    store = await openStore({ databaseUrl: url, dataDir: '/nonexistent/mailvet-data' });
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  after(async () => {
    await store?.close();
    await client?.end();
    await schemas.dropAll();
  });

  /** Uploads a list of `count` rows, each its own address. */
  async function upload(count: number): Promise<void> {
    uploads += 1;
    const key = await createKey(store);
    const id = await store.lists.beginList(
      { accountId: key.accountId, apiKeyId: key.id, source: 'json', header: null },
      new Date(),
    );
    const rows: UploadedRow[] = Array.from({ length: count }, (_, i) => {
      const email = `u${uploads}-${i}@example.test`;
      return { rowNumber: i + 1, email, addressKey: email, domain: 'example.test', fields: null };
    });
    await addUploadRows(store.lists, id, rows, new Date(), false);
    await store.lists.finishUpload(id, new Date(), { name: `list ${uploads}`, webhookUrl: null });
  }

  async function counted(): Promise<Record<string, number>> {
    const { rows } = await client.query<{ name: string; counted: number }>(
      `select relname as name, reltuples as counted from pg_class
        where oid in ('list_rows'::regclass, 'list_addresses'::regclass) order by relname`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.counted)]));
  }

  it('gathers them at the first upload', async () => {
    await upload(200);
    assert.deepEqual(await counted(), { list_addresses: 200, list_rows: 200 });
  });

  it('leaves them when an upload adds a tenth or less', async () => {
    await upload(20);
    assert.deepEqual(await counted(), { list_addresses: 200, list_rows: 200 });
  });

  it('gathers them again when an upload adds more', async () => {
    await upload(40);
    assert.deepEqual(await counted(), { list_addresses: 260, list_rows: 260 });
  });
});
