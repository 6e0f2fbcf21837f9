import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

test('a write alone in its turn that throws half-way leaves none of its rows; the next turn commits', async () => {
  const connection = new Database(':memory:');
  connection.exec('create table t (v text)');
  const insert = connection.prepare('insert into t (v) values (?)');
  const batcher = new WriteBatcher(connection);
  await assert.rejects(
    batcher.run(() => {
      insert.run('half-written');
      throw new Error('the second statement failed');
    }),
    /the second statement failed/,
  );
  assert.equal(connection.inTransaction, false);
  assert.equal(await batcher.run(() => insert.run('next').changes), 1);
  const rows = connection.prepare('select v from t order by rowid').all() as Array<{ v: string }>;
  assert.deepEqual(
    rows.map((row) => row.v),
    ['next'],
  );
  connection.close();
});

test('a batch whose transaction cannot begin (another writer holds the lock) rejects every write in it, and the batcher goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'write-batcher-'));
  const connection = new Database(join(dir, 'db.sqlite'));
  const other = new Database(join(dir, 'db.sqlite'));
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('busy_timeout = 0');
    connection.exec('create table t (v text)');
    const insert = connection.prepare('insert into t (v) values (?)');
    const batcher = new WriteBatcher(connection);
    other.exec('begin immediate');
    for (const writes of [1, 2]) {
      const outcomes = await Promise.allSettled(
        Array.from({ length: writes }, (_, i) => batcher.run(() => insert.run(`held ${i}`))),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        Array(writes).fill('rejected'),
        `${writes} write(s) in the turn`,
      );
    }
    other.exec('rollback');
    await batcher.run(() => insert.run('after'));
    const rows = connection.prepare('select v from t').all() as Array<{ v: string }>;
    assert.deepEqual(
      rows.map((row) => row.v),
      ['after'],
    );
  } finally {
    other.close();
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
