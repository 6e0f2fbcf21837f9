/**
 * The audit log's contract, run on every backend by `audit-store.test.ts`: entries come back as
 * recorded, newest first, per account only (another account's never show, whatever the cursor or
 * filter), paged with `before` and filtered by action; the expiry removes only entries older than
 * 400 days of a moved clock, in bounded batches, across accounts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import { expireAuditEntries } from '../../../src/audit/audit-expiry.ts';
import { AuditTrail } from '../../../src/audit/audit-trail.ts';
import type { Initiator } from '../../../src/audit/ports.ts';
import type { Store } from '../../../src/store.ts';
import type { StoreContractTarget } from './store-fixtures.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const JANE: Initiator = {
  actor: { type: 'user', id: 'usr_jane', label: 'jane@example.com' },
  ip: '203.0.113.7',
};

/** Registers the audit log cases for one backend. */
export function auditStoreContract(target: StoreContractTarget): void {
  describe(`${target.kind} audit log`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(target.options);
    });
    after(() => store.close());

    const account = async () => (await store.createAccount({ name: 'Audited', plan: 'free' })).id;
    /** A trail whose clock the case moves. */
    const trailAt = (clock: { now: Date }) => new AuditTrail({ log: store.audit, now: () => clock.now });

    it('gives back each entry as recorded, newest first, for its account only', async () => {
      const [mine, theirs] = [await account(), await account()];
      const clock = { now: new Date('2026-03-01T10:00:00.000Z') };
      const trail = trailAt(clock);
      const first = await trail.record(mine, JANE, {
        action: 'key.updated',
        targetId: 'key_1',
        details: { before: { rate_limit: null }, after: { rate_limit: 5 } },
      });
      clock.now = new Date('2026-03-01T10:00:01.000Z');
      const second = await trail.record(
        mine,
        { actor: JANE.actor, ip: null },
        {
          action: 'list.deleted',
          targetId: 'lst_1',
        },
      );
      await trail.record(theirs, JANE, { action: 'key.revoked', targetId: 'key_2' });

      const page = await store.audit.list(mine, { limit: 10 });
      assert.deepEqual(page, [second, first]);
      assert.deepEqual(first, {
        id: first.id,
        accountId: mine,
        at: '2026-03-01T10:00:00.000Z',
        actor: { type: 'user', id: 'usr_jane', label: 'jane@example.com' },
        ip: '203.0.113.7',
        action: 'key.updated',
        target: { type: 'key', id: 'key_1' },
        details: { before: { rate_limit: null }, after: { rate_limit: 5 } },
      });
      assert.deepEqual(second.details, {});
      assert.equal((await store.audit.list(theirs, { limit: 10 })).length, 1);
      assert.deepEqual(await store.audit.list(await account(), { limit: 10 }), []);
    });

    it('pages with `before` and filters by action, never reaching another account', async () => {
      const [mine, theirs] = [await account(), await account()];
      const trail = new AuditTrail({ log: store.audit });
      const ids: string[] = [];
      for (let n = 0; n < 7; n++) {
        const action = n % 2 === 0 ? 'schedule.created' : 'schedule.deleted';
        ids.push((await trail.record(mine, JANE, { action, targetId: `sch_${n}` })).id);
        await trail.record(theirs, JANE, { action, targetId: `their_${n}` });
      }
      const newest = [...ids].reverse();
      assert.deepEqual(
        ids,
        [...ids].sort(),
        'entries recorded one after another have increasing ids, in the same millisecond too',
      );
      const first = await store.audit.list(mine, { limit: 3 });
      assert.deepEqual(
        first.map((entry) => entry.id),
        newest.slice(0, 3),
      );
      const second = await store.audit.list(mine, { limit: 3, before: first.at(-1)!.id });
      assert.deepEqual(
        second.map((entry) => entry.id),
        newest.slice(3, 6),
      );
      const last = await store.audit.list(mine, { limit: 3, before: second.at(-1)!.id });
      assert.deepEqual(
        last.map((entry) => entry.id),
        newest.slice(6),
      );
      const created = await store.audit.list(mine, { limit: 10, action: 'schedule.created' });
      assert.deepEqual(
        created.map((entry) => entry.target.id),
        ['sch_6', 'sch_4', 'sch_2', 'sch_0'],
      );
      const olderCreated = await store.audit.list(mine, {
        limit: 2,
        action: 'schedule.created',
        before: created[1]!.id,
      });
      assert.deepEqual(
        olderCreated.map((entry) => entry.target.id),
        ['sch_2', 'sch_0'],
      );
      // A cursor of another account's entry pages this account's log, never the other's.
      const theirNewest = (await store.audit.list(theirs, { limit: 1 }))[0]!;
      const across = await store.audit.list(mine, { limit: 10, before: theirNewest.id });
      assert.ok(across.every((entry) => entry.accountId === mine));
    });

    it('expires entries older than 400 days, in bounded batches, and keeps the rest', async () => {
      const [one, two] = [await account(), await account()];
      const clock = { now: new Date('2024-01-01T00:00:00.000Z') };
      const trail = trailAt(clock);
      for (let n = 0; n < 5; n++) {
        await trail.record(one, JANE, { action: 'run.started', targetId: `old_${n}` });
        await trail.record(two, JANE, { action: 'run.started', targetId: `old_${n}` });
      }
      clock.now = new Date('2024-06-01T00:00:00.000Z');
      await trail.record(one, JANE, { action: 'run.cancelled', targetId: 'recent' });

      // 399 days after the old ones: nothing has expired yet.
      const early = new Date(Date.parse('2024-01-01T00:00:00.000Z') + 399 * DAY_MS);
      assert.equal(await expireAuditEntries({ log: store.audit, now: () => early, batch: 3 }), 0);
      // 401 days after: the ten old entries of both accounts go, three a statement.
      const late = new Date(Date.parse('2024-01-01T00:00:00.000Z') + 401 * DAY_MS);
      let statements = 0;
      const counted = {
        deleteExpired: async (cutoff: string, limit: number) => {
          statements++;
          const removed = await store.audit.deleteExpired(cutoff, limit);
          assert.ok(removed <= limit, 'a statement never deletes more than its batch');
          return removed;
        },
      };
      assert.equal(await expireAuditEntries({ log: counted, now: () => late, batch: 3 }), 10);
      assert.equal(statements, 4);
      assert.deepEqual(
        (await store.audit.list(one, { limit: 10 })).map((entry) => entry.target.id),
        ['recent'],
      );
      assert.deepEqual(await store.audit.list(two, { limit: 10 }), []);
    });
  });
}
