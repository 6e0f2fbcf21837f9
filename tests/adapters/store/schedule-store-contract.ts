/**
 * The schedule store's contract, run on every backend by its store suite: schedules kept per
 * account, the per-integration cap exact under concurrent creations, due schedules found, and a
 * slot claimed by exactly one of several claimers at once (two store instances: separate
 * connections, as two processes have).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type { Schedule } from '../../../src/integrations/schedules/ports.ts';
import type { Store } from '../../../src/store.ts';
import { connectedIntegration, type StoreContractTarget } from './store-fixtures.ts';

/** Registers the schedule cases for one backend. */
export function scheduleStoreContract(target: StoreContractTarget): void {
  describe(`${target.kind} schedule store`, () => {
    let store: Store;
    let second: Store;
    before(async () => {
      [store, second] = await Promise.all([openStore(target.options), openStore(target.options)]);
    });
    after(async () => {
      await Promise.all([store.close(), second.close()]);
    });

    const connected = () => connectedIntegration(store, 'Scheduler');

    const scheduleOf = (
      owner: { accountId: string; integrationId: string },
      overrides: Partial<Schedule> = {},
    ): Schedule => ({
      id: `sch_${randomUUID()}`,
      ...owner,
      audienceId: 'aud1',
      cron: '0 3 * * 1',
      timezone: 'Europe/Paris',
      scope: 'stale',
      staleDays: 30,
      statuses: ['subscribed', 'pending'],
      writeBack: { fields: true, tags: false, segments: true, unsubscribeInvalid: false },
      paused: false,
      nextRunAt: '2026-11-30T02:00:00.000Z',
      lastRunAt: null,
      lastRunId: null,
      lastError: null,
      createdAt: '2026-11-26T10:00:00.000Z',
      ...overrides,
    });

    it("keeps schedules per account: another account's is not found, not changed, not removed", async () => {
      const mine = await connected();
      const theirs = await connected();
      const schedule = scheduleOf(mine);
      const dry = scheduleOf(mine, { writeBack: null, createdAt: '2026-11-26T11:00:00.000Z' });
      assert.equal(await store.schedules.createSchedule(schedule, 20), 'created');
      assert.equal(await store.schedules.createSchedule(dry, 20), 'created');
      assert.deepEqual(
        await store.schedules.findSchedule(mine.accountId, mine.integrationId, schedule.id),
        schedule,
      );
      assert.deepEqual(await store.schedules.listSchedules(mine.accountId, mine.integrationId), [
        schedule,
        dry,
      ]);
      assert.equal(
        await store.schedules.findSchedule(theirs.accountId, mine.integrationId, schedule.id),
        null,
      );
      assert.deepEqual(await store.schedules.listSchedules(theirs.accountId, mine.integrationId), []);
      assert.equal(
        await store.schedules.updateSchedule(theirs.accountId, mine.integrationId, schedule.id, {
          paused: true,
        }),
        null,
      );
      assert.equal(
        await store.schedules.deleteSchedule(theirs.accountId, mine.integrationId, schedule.id),
        false,
      );
      assert.equal(
        await store.schedules.createSchedule(
          scheduleOf({ ...theirs, integrationId: mine.integrationId }),
          20,
        ),
        'not_found',
        "a schedule on another account's integration",
      );

      const changed = await store.schedules.updateSchedule(mine.accountId, mine.integrationId, schedule.id, {
        paused: true,
        nextRunAt: null,
        statuses: ['cleaned'],
        writeBack: null,
      });
      assert.deepEqual(changed, {
        ...schedule,
        paused: true,
        nextRunAt: null,
        statuses: ['cleaned'],
        writeBack: null,
      });
      assert.equal(
        await store.schedules.deleteSchedule(mine.accountId, mine.integrationId, schedule.id),
        true,
      );
      assert.equal(
        await store.schedules.deleteSchedule(mine.accountId, mine.integrationId, schedule.id),
        false,
      );
      assert.equal(await store.integrations.deleteIntegration(mine.accountId, mine.integrationId), true);
      assert.equal(
        await store.schedules.findSchedule(mine.accountId, mine.integrationId, dry.id),
        null,
        'removed with its integration',
      );
    });

    it('keeps to the cap per integration, even for creations at once', async () => {
      const owner = await connected();
      // On PostgreSQL from two pools, as two processes. Embedded SQLite is one process with one
      // connection, whose transactions queue on it; two in one process would block each other's
      // synchronous busy wait, which no deployment does.
      const other = target.kind === 'postgres' ? second : store;
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store : other).schedules.createSchedule(scheduleOf(owner), 3),
        ),
      );
      assert.equal(outcomes.filter((outcome) => outcome === 'created').length, 3, outcomes.join());
      assert.equal(outcomes.filter((outcome) => outcome === 'full').length, 5);
      assert.equal((await store.schedules.listSchedules(owner.accountId, owner.integrationId)).length, 3);
      const another = await connected();
      assert.equal(
        await store.schedules.createSchedule(scheduleOf(another), 3),
        'created',
        'the cap is per integration',
      );
    });

    it('finds due schedules, and a slot claimed at once on two connections is won by exactly one', async () => {
      const owner = await connected();
      // Far in the past: no other case's schedules are due before these.
      const due = scheduleOf(owner, { nextRunAt: '2001-01-01T03:00:00.000Z' });
      const later = scheduleOf(owner, { nextRunAt: '2001-01-01T03:00:00.001Z' });
      const future = scheduleOf(owner, { nextRunAt: '2001-01-02T03:00:00.000Z' });
      const paused = scheduleOf(owner, { paused: true, nextRunAt: null });
      for (const schedule of [due, later, future, paused])
        assert.equal(await store.schedules.createSchedule(schedule, 20), 'created');

      const found = await store.schedules.dueSchedules('2001-01-01T12:00:00.000Z', 10);
      assert.deepEqual(
        found.map((schedule) => schedule.id),
        [due.id, later.id],
        'the longest due first; future and paused ones left',
      );
      assert.deepEqual(
        (await store.schedules.dueSchedules('2001-01-01T12:00:00.000Z', 1)).map((schedule) => schedule.id),
        [due.id],
      );

      const next = '2001-01-08T03:00:00.000Z';
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? store : second).schedules.claimSlot(due.id, due.nextRunAt!, next),
        ),
      );
      assert.equal(claims.filter(Boolean).length, 1, 'one claim of six at once');
      assert.equal(await store.schedules.claimSlot(due.id, due.nextRunAt!, next), false, 'the slot is spent');
      assert.equal(
        (await store.schedules.findSchedule(owner.accountId, owner.integrationId, due.id))?.nextRunAt,
        next,
      );
      assert.deepEqual(
        (await store.schedules.dueSchedules('2001-01-01T12:00:00.000Z', 10)).map((schedule) => schedule.id),
        [later.id],
      );

      // A change made between reading a due schedule and claiming it wins: the claim fails.
      await store.schedules.updateSchedule(owner.accountId, owner.integrationId, later.id, {
        nextRunAt: '2001-01-03T00:00:00.000Z',
      });
      assert.equal(await store.schedules.claimSlot(later.id, later.nextRunAt!, next), false);
      await store.schedules.updateSchedule(owner.accountId, owner.integrationId, future.id, { paused: true });
      assert.equal(await store.schedules.claimSlot(future.id, future.nextRunAt!, next), false, 'paused');

      await store.schedules.recordFiring(due.id, {
        at: '2001-01-01T12:00:00.000Z',
        runId: null,
        error: 'Busy',
      });
      await store.schedules.recordFiring(due.id, {
        at: '2001-01-08T03:00:00.000Z',
        runId: 'run_1',
        error: null,
      });
      assert.deepEqual(await store.schedules.findSchedule(owner.accountId, owner.integrationId, due.id), {
        ...due,
        nextRunAt: next,
        lastRunAt: '2001-01-08T03:00:00.000Z',
        lastRunId: 'run_1',
        lastError: null,
      });
    });
  });
}
