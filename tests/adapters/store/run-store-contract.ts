/**
 * The run store's contract, run on every backend by its store suite: runs kept per account, one
 * active run per audience even when two processes create one at the same instant, conditional
 * phase changes (a cancelled run is not moved on by a worker), each audience's latest run, and the
 * last completed run that `changed` runs start from.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type { IntegrationRun } from '../../../src/integrations/runs/ports.ts';
import type { Store } from '../../../src/store.ts';
import { connectedIntegration, type StoreContractTarget } from './store-fixtures.ts';

/** Registers the run cases for one backend. */
export function runStoreContract(target: StoreContractTarget): void {
  describe(`${target.kind} run store`, () => {
    let store: Store;
    let second: Store;
    before(async () => {
      [store, second] = await Promise.all([openStore(target.options), openStore(target.options)]);
    });
    after(async () => {
      await Promise.all([store.close(), second.close()]);
    });

    const connected = () => connectedIntegration(store, 'Runner');

    let clock = Date.parse('2026-11-26T10:00:00.000Z');
    const runOf = (
      owner: { accountId: string; integrationId: string },
      audienceId = 'aud1',
    ): IntegrationRun => {
      clock += 1000;
      const at = new Date(clock).toISOString();
      return {
        id: `run_${randomUUID()}`,
        ...owner,
        audienceId,
        audienceName: 'Customers',
        statuses: ['subscribed', 'pending'],
        scope: 'stale',
        staleDays: 30,
        writeBack: { fields: true, tags: false, segments: true, unsubscribeInvalid: false },
        trigger: 'manual',
        scheduleId: null,
        state: 'queued',
        listId: null,
        changedSince: null,
        readAt: null,
        members: 0,
        written: 0,
        writeErrors: 0,
        writeCursor: 0,
        pendingJobs: [],
        categories: null,
        message: null,
        createdAt: at,
        updatedAt: at,
        startedAt: null,
        finishedAt: null,
      };
    };

    it('keeps runs per account, and one active run per audience even when two create one at once', async () => {
      const owner = await connected();
      const [a, b] = [runOf(owner), runOf(owner)];
      const created = await Promise.all([store.runs.createRun(a), second.runs.createRun(b)]);
      assert.equal(created.filter((run) => run !== null).length, 1, JSON.stringify(created));
      const winner = created.find((run) => run !== null)!;
      assert.deepEqual(await store.runs.findRun(owner.accountId, owner.integrationId, winner.id), winner);
      const other = await connected();
      assert.equal(await store.runs.findRun(other.accountId, owner.integrationId, winner.id), null);
      assert.deepEqual(await store.runs.listRuns(other.accountId, owner.integrationId, 10), []);
      // Another audience runs beside it.
      assert.notEqual(await store.runs.createRun(runOf(owner, 'aud2')), null);
      // Once the run ends, the audience takes a new one.
      assert.equal(
        await store.runs.updateRun(winner.id, ['queued'], 'cancelled', new Date().toISOString()),
        true,
      );
      assert.notEqual(await store.runs.createRun(runOf(owner)), null);
    });

    it('moves a run only from the states given, and patches what it is told', async () => {
      const owner = await connected();
      const run = (await store.runs.createRun(runOf(owner)))!;
      const now = '2026-11-26T11:00:00.000Z';
      assert.equal(await store.runs.updateRun(run.id, ['verifying'], 'writing', now), false, 'not verifying');
      assert.equal(
        await store.runs.updateRun(run.id, ['queued'], 'reading', now, {
          startedAt: now,
          listId: 'lst_1',
          readAt: now,
        }),
        true,
      );
      assert.equal(
        await second.runs.updateRun(run.id, ['reading'], 'writing', now, {
          members: 12,
          categories: { verified: 12, valid: 10, risky: 1, invalid: 1 },
          writeCursor: 7,
          pendingJobs: ['b1', 'b2'],
          written: 3,
          writeErrors: 1,
        }),
        true,
      );
      const moved = (await store.runs.getRun(run.id))!;
      assert.deepEqual(
        {
          state: moved.state,
          listId: moved.listId,
          members: moved.members,
          writeCursor: moved.writeCursor,
          pendingJobs: moved.pendingJobs,
          written: moved.written,
          writeErrors: moved.writeErrors,
          categories: moved.categories,
          startedAt: moved.startedAt,
          statuses: moved.statuses,
          writeBack: moved.writeBack,
          updatedAt: moved.updatedAt,
        },
        {
          state: 'writing',
          listId: 'lst_1',
          members: 12,
          writeCursor: 7,
          pendingJobs: ['b1', 'b2'],
          written: 3,
          writeErrors: 1,
          categories: { verified: 12, valid: 10, risky: 1, invalid: 1 },
          startedAt: now,
          statuses: ['subscribed', 'pending'],
          writeBack: run.writeBack,
          updatedAt: now,
        },
      );
      assert.deepEqual(
        (await store.runs.activeRunIds()).filter((id) => id === run.id),
        [run.id],
      );
      // A cancel lands: the worker's next move is refused.
      assert.equal(
        await store.runs.updateRun(run.id, ['writing'], 'cancelled', now, { finishedAt: now }),
        true,
      );
      assert.equal(
        await second.runs.updateRun(run.id, ['writing'], 'writing', now, { writeCursor: 9 }),
        false,
      );
      assert.equal((await store.runs.getRun(run.id))!.writeCursor, 7);
      assert.ok(!(await store.runs.activeRunIds()).includes(run.id));
    });

    it("pages runs newest first, and knows each audience's latest and last completed run", async () => {
      const owner = await connected();
      const done: IntegrationRun[] = [];
      for (let i = 0; i < 3; i++) {
        const run = (await store.runs.createRun(runOf(owner)))!;
        await store.runs.updateRun(run.id, ['queued'], i === 1 ? 'failed' : 'completed', run.createdAt);
        done.push(run);
      }
      const other = (await store.runs.createRun(runOf(owner, 'aud2')))!;
      const page = await store.runs.listRuns(owner.accountId, owner.integrationId, 2);
      assert.deepEqual(
        page.map((run) => run.id),
        [other.id, done[2]!.id],
      );
      const next = await store.runs.listRuns(owner.accountId, owner.integrationId, 10, {
        createdAt: page[1]!.createdAt,
        id: page[1]!.id,
      });
      assert.deepEqual(
        next.map((run) => run.id),
        [done[1]!.id, done[0]!.id],
      );
      const latest = await store.runs.latestRuns(owner.accountId, owner.integrationId);
      assert.deepEqual(latest.map((run) => run.id).sort(), [done[2]!.id, other.id].sort());
      assert.equal((await store.runs.lastCompletedRun(owner.integrationId, 'aud1'))!.id, done[2]!.id);
      assert.equal(await store.runs.lastCompletedRun(owner.integrationId, 'aud2'), null);
    });

    it('removes runs with their integration', async () => {
      const owner = await connected();
      const run = (await store.runs.createRun(runOf(owner)))!;
      await store.integrations.deleteIntegration(owner.accountId, owner.integrationId);
      assert.equal(await store.runs.getRun(run.id), null);
    });
  });
}
