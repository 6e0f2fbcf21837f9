/**
 * Start-up on a shared PostgreSQL server: other people's schemas come and go while `serve`,
 * `worker` or `migrate` applies migrations. Kysely's Migrator used to introspect every schema of
 * the database, so a schema dropped at that moment failed our start-up with `schema "…" does not
 * exist`, naming someone else's schema. Migrations must only look at their own schema.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import pg from 'pg';
import { migrateOnly } from '../../../src/adapters/store/open-store.ts';
import { requirePostgres } from '../../helpers/services.ts';

const postgres = await requirePostgres('PostgreSQL migration churn suite');
const RUNS = 24;

if (postgres.url === null) {
  test('migrations beside churning schemas', (t) => t.skip(postgres.skipReason));
} else {
  const baseUrl = postgres.url;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const ours: string[] = [];
  after(async () => {
    for (const schema of ours) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  test('every migration run succeeds while unrelated schemas are created and dropped', async () => {
    const churner = new pg.Client({ connectionString: baseUrl });
    await churner.connect();
    let churning = true;
    let churned = 0;
    const churn = (async () => {
      while (churning) {
        const schema = `someone_else_${randomBytes(4).toString('hex')}`;
        await churner.query(
          `create schema ${schema}; create table ${schema}.t (id serial primary key, v text)`,
        );
        await churner.query(`drop schema ${schema} cascade`);
        churned++;
      }
    })();

    const failures: string[] = [];
    try {
      for (let run = 0; run < RUNS; run++) {
        const schema = `mailvet_churn_${randomBytes(6).toString('hex')}`;
        await admin.query(`create schema ${schema}`);
        ours.push(schema);
        const url = new URL(baseUrl);
        url.searchParams.set('options', `-c search_path=${schema}`);
        try {
          const applied = await migrateOnly({ databaseUrl: url.toString(), dataDir: '/nonexistent' });
          assert.ok(applied.length > 0, 'a fresh schema gets every migration');
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    } finally {
      churning = false;
      await churn;
      await churner.end();
    }
    assert.ok(churned > RUNS, `the churn kept going during the runs (${churned} schemas)`);
    assert.deepEqual(failures, []);
  });
}
