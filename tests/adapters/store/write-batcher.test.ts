import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { WriteBatcher } from '../../../src/adapters/store/sqlite/write-batcher.ts';

test('a write that throws half-way leaves none of its rows; the others in its batch commit', async () => {
  const connection = new Database(':memory:');
  connection.exec('create table t (v text)');
  const insert = connection.prepare('insert into t (v) values (?)');
  const batcher = new WriteBatcher(connection);
  const outcomes = await Promise.allSettled([
    batcher.run(() => insert.run('before')),
    batcher.run(() => {
      insert.run('half-written');
      throw new Error('the second statement failed');
    }),
    batcher.run(() => insert.run('after')),
  ]);
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const rows = connection.prepare('select v from t order by rowid').all() as Array<{ v: string }>;
  assert.deepEqual(
    rows.map((row) => row.v),
    ['before', 'after'],
  );
  connection.close();
});
