/**
 * WAL checkpoints on a thread of their own: they start once writes are busy (not at start: an idle
 * server keeps SQLite's own), SQLite's automatic checkpoint inside commits is off from then on,
 * the worker's checkpoints copy every committed page while the connection keeps writing, and a
 * store closes with its WAL folded back into the database.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { issueApiKey } from '../../../../src/accounts/key-issuance.ts';
import { openStore } from '../../../../src/adapters/store/open-store.ts';
import { BackgroundCheckpoints } from '../../../../src/adapters/store/sqlite/background-checkpoints.ts';
import { atMost } from '../store-fixtures.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mailvet-checkpoints-'));
  dirs.push(dir);
  return dir;
}

type Outcome = { frames: number; copied: number } | { error: string };

describe('background checkpoints', () => {
  it('start after the busy threshold, turn SQLite’s own off, and copy what was committed', async () => {
    const connection = new Database(join(freshDir(), 'test.db'));
    connection.pragma('journal_mode = WAL');
    connection.exec('create table t (n integer primary key, body text)');
    const outcomes: Outcome[] = [];
    const checkpoints = new BackgroundCheckpoints(connection, {
      busyAfter: 3,
      intervalMs: 60_000,
      onCheckpoint: (outcome) => outcomes.push(outcome),
    });
    const insert = connection.prepare('insert into t (body) values (?)');
    try {
      for (let i = 0; i < 2; i++) {
        insert.run('x'.repeat(5000));
        checkpoints.wrote();
      }
      assert.equal(checkpoints.running, false);
      assert.equal(connection.pragma('wal_autocheckpoint', { simple: true }), 1000);
      insert.run('x'.repeat(5000));
      checkpoints.wrote();
      assert.equal(checkpoints.running, true);
      assert.equal(connection.pragma('wal_autocheckpoint', { simple: true }), 0);

      // 2,000 pages committed: SQLite's own checkpoint would have run inside one of these commits.
      for (let i = 0; i < 1000; i++) insert.run('y'.repeat(8000));
      await checkpoints.checkpointNow();
      const last = outcomes.at(-1);
      assert.ok(last !== undefined && 'frames' in last, JSON.stringify(outcomes));
      assert.ok(last.frames > 2000, `${last.frames} frames in the WAL`);
      assert.equal(last.copied, last.frames, 'a passive checkpoint with no reader copies every frame');
      assert.equal((connection.prepare('select count(*) as n from t').get() as { n: number }).n, 1003);
    } finally {
      await checkpoints.stop();
      connection.close();
    }
  });

  it('a busy store checkpoints on its thread and closes with the WAL folded back into the file', async () => {
    const dataDir = freshDir();
    const store = await openStore({ dataDir, backgroundCheckpoints: true });
    const issued = await issueApiKey(store, { name: 'busy', plan: 'pro', monthlyQuota: 1_000_000 });
    const owner = { accountId: issued.record.accountId, keyId: issued.record.id };
    // Charges go through the write batcher, one transaction a turn: 300 turns make writes busy.
    for (let i = 0; i < 300; i++) await store.chargeVerifications(owner, '2026-11', 1, atMost(1_000_000));
    await store.close();
    assert.equal(existsSync(join(dataDir, 'mailvet.db-wal')), false);
    const again = await openStore({ dataDir });
    try {
      assert.equal((await again.usage(owner, '2026-11')).account.verifications, 300);
    } finally {
      await again.close();
    }
  });
});
