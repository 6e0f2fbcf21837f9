/**
 * The daily figures counted in memory between flushes: one entry a key, day and metric, whatever
 * order the counts come in, and nothing lost when the store refuses a flush.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DailyUsageRecorder } from '../../src/usage/daily-usage.ts';
import type { DailyUsage } from '../../src/usage/ports.ts';

const byName = (entries: readonly DailyUsage[]) =>
  Object.fromEntries(entries.map((e) => [`${e.accountId}/${e.keyId}/${e.day}/${e.metric}`, e.count]));

test('counts are summed by account, key, day and metric, and flushed once', async () => {
  const flushed: DailyUsage[][] = [];
  const recorder = new DailyUsageRecorder({
    addDailyUsage: async (entries) => void flushed.push([...entries]),
  });
  const one = { accountId: 'a1', keyId: 'k1' };
  const two = { accountId: 'a1', keyId: 'k2' };
  const other = { accountId: 'a2', keyId: 'k3' };
  const day = new Date('2026-11-28T10:00:00Z');
  const next = new Date('2026-11-29T00:00:00Z');
  recorder.record(one, 'VALID', 1, day);
  recorder.record(two, 'VALID', 2, day);
  recorder.record(one, 'INVALID', 1, day);
  recorder.record(one, 'VALID', 3, day);
  recorder.record(other, 'VALID', 1, day);
  recorder.record(one, 'VALID', 1, next);
  recorder.record(one, 'VALID', 0, day);
  await recorder.flush();
  assert.equal(flushed.length, 1);
  assert.deepEqual(byName(flushed[0]!), {
    'a1/k1/2026-11-28/VALID': 4,
    'a1/k2/2026-11-28/VALID': 2,
    'a1/k1/2026-11-28/INVALID': 1,
    'a2/k3/2026-11-28/VALID': 1,
    'a1/k1/2026-11-29/VALID': 1,
  });
  assert.equal(flushed[0]!.length, 5, 'one entry for each');
  await recorder.flush();
  assert.equal(flushed.length, 1, 'nothing new: no write');
});

test('a refused flush keeps its counts for the next, added to what came meanwhile', async () => {
  let refuse = true;
  const flushed: DailyUsage[][] = [];
  const recorder = new DailyUsageRecorder({
    addDailyUsage: async (entries) => {
      if (refuse) throw new Error('database is locked');
      flushed.push([...entries]);
    },
  });
  const owner = { accountId: 'a1', keyId: 'k1' };
  recorder.record(owner, 'VALID', 2, new Date('2026-11-28T10:00:00Z'));
  await assert.rejects(recorder.flush(), /locked/);
  recorder.record(owner, 'VALID', 1, new Date('2026-11-28T11:00:00Z'));
  refuse = false;
  await recorder.flush();
  assert.deepEqual(byName(flushed[0]!), { 'a1/k1/2026-11-28/VALID': 3 });
});
