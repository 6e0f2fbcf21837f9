/**
 * The feedback store's contract, run on every backend by `feedback-store.test.ts`: events kept per
 * account (another account's never show), duplicates stored once (in one call and across calls),
 * the latest instant of each event per address, per-domain counts with the bounce rule, the cap
 * all or nothing, exact under concurrent records (on PostgreSQL from two pools, as two processes),
 * and feedback removed with its account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type { FeedbackRecord } from '../../../src/feedback/ports.ts';
import type { Store } from '../../../src/store.ts';
import type { StoreContractTarget } from './store-fixtures.ts';

const NONE = { hard_bounce: null, soft_bounce: null, delivered: null, complaint: null };

/** An event at `domain` (default example.test). */
function event(
  local: string,
  kind: FeedbackRecord['event'],
  at: string,
  domain = 'example.test',
): FeedbackRecord {
  return { address: `${local}@${domain}`, domain, event: kind, at };
}

/** Registers the feedback cases for one backend. */
export function feedbackStoreContract(target: StoreContractTarget): void {
  describe(`${target.kind} feedback store`, () => {
    let store: Store;
    let second: Store;
    before(async () => {
      [store, second] = await Promise.all([openStore(target.options), openStore(target.options)]);
    });
    after(async () => {
      await Promise.all([store.close(), second.close()]);
    });

    const account = async () => (await store.createAccount({ name: 'Sender', plan: 'free' })).id;

    it('records events and tells the latest of each kind per address, for that account only', async () => {
      const mine = await account();
      const theirs = await account();
      const outcome = await store.feedback.record(
        mine,
        [
          event('jane', 'hard_bounce', '2026-01-01T00:00:00.000Z'),
          event('jane', 'hard_bounce', '2026-03-01T00:00:00.000Z'),
          event('jane', 'delivered', '2026-02-01T00:00:00.000Z'),
          event('jane', 'complaint', '2026-02-15T00:00:00.000Z'),
          event('john', 'soft_bounce', '2026-02-01T00:00:00.000Z'),
        ],
        100,
      );
      assert.deepEqual(outcome, { kind: 'recorded', recorded: 5, duplicates: 0 });
      assert.deepEqual(await store.feedback.outcomeOf(mine, 'jane@example.test'), {
        hard_bounce: '2026-03-01T00:00:00.000Z',
        soft_bounce: null,
        delivered: '2026-02-01T00:00:00.000Z',
        complaint: '2026-02-15T00:00:00.000Z',
      });
      assert.deepEqual(await store.feedback.outcomeOf(mine, 'john@example.test'), {
        ...NONE,
        soft_bounce: '2026-02-01T00:00:00.000Z',
      });
      assert.deepEqual(await store.feedback.outcomeOf(mine, 'nobody@example.test'), NONE);
      assert.deepEqual(await store.feedback.outcomeOf(theirs, 'jane@example.test'), NONE);
      assert.equal(await store.feedback.countEvents(mine), 5);
      assert.equal(await store.feedback.countEvents(theirs), 0);
    });

    it('stores an event once: repeated in one call, or sent again later', async () => {
      const mine = await account();
      const bounce = event('dup', 'hard_bounce', '2026-05-05T05:05:05.000Z');
      assert.deepEqual(await store.feedback.record(mine, [bounce, bounce, { ...bounce }], 100), {
        kind: 'recorded',
        recorded: 1,
        duplicates: 2,
      });
      const again = await store.feedback.record(
        mine,
        [bounce, event('dup', 'hard_bounce', '2026-05-06T00:00:00.000Z')],
        100,
      );
      assert.deepEqual(again, { kind: 'recorded', recorded: 1, duplicates: 1 });
      assert.equal(await store.feedback.countEvents(mine), 2);
      // The same event for another account is that account's own.
      const theirs = await account();
      assert.deepEqual(await store.feedback.record(theirs, [bounce], 100), {
        kind: 'recorded',
        recorded: 1,
        duplicates: 0,
      });
    });

    it('counts a domain per address, with the bounce rule (a later delivery lifts a bounce)', async () => {
      const mine = await account();
      const theirs = await account();
      await store.feedback.record(
        mine,
        [
          // bounced
          event('a', 'hard_bounce', '2026-01-02T00:00:00.000Z', 'stats.test'),
          event('a', 'delivered', '2026-01-01T00:00:00.000Z', 'stats.test'),
          // bounced: a delivery at the same instant does not lift it
          event('b', 'hard_bounce', '2026-01-01T00:00:00.000Z', 'stats.test'),
          event('b', 'delivered', '2026-01-01T00:00:00.000Z', 'stats.test'),
          // lifted
          event('c', 'hard_bounce', '2026-01-01T00:00:00.000Z', 'stats.test'),
          event('c', 'delivered', '2026-01-03T00:00:00.000Z', 'stats.test'),
          event('d', 'soft_bounce', '2026-01-01T00:00:00.000Z', 'stats.test'),
          event('d', 'soft_bounce', '2026-01-02T00:00:00.000Z', 'stats.test'),
          event('e', 'complaint', '2026-01-01T00:00:00.000Z', 'stats.test'),
          event('f', 'hard_bounce', '2026-01-01T00:00:00.000Z', 'elsewhere.test'),
        ],
        100,
      );
      await store.feedback.record(
        theirs,
        [event('z', 'hard_bounce', '2026-01-01T00:00:00.000Z', 'stats.test')],
        100,
      );
      assert.deepEqual(await store.feedback.domainStats(mine, 'stats.test'), {
        addresses: 5,
        byEvent: { hard_bounce: 3, soft_bounce: 1, delivered: 3, complaint: 1 },
        bounced: 2,
      });
      assert.deepEqual(await store.feedback.domainStats(mine, 'unknown.test'), {
        addresses: 0,
        byEvent: { hard_bounce: 0, soft_bounce: 0, delivered: 0, complaint: 0 },
        bounced: 0,
      });
      assert.equal((await store.feedback.domainStats(theirs, 'stats.test')).addresses, 1);
    });

    it('lists the addresses delivered at a domain, once each, for that account only, up to the limit', async () => {
      const mine = await account();
      const theirs = await account();
      await store.feedback.record(
        mine,
        [
          event('ann.lee', 'delivered', '2026-01-01T00:00:00.000Z', 'peers.test'),
          event('ann.lee', 'delivered', '2026-02-01T00:00:00.000Z', 'peers.test'),
          event('bo.park', 'delivered', '2026-01-01T00:00:00.000Z', 'peers.test'),
          event('cy.diaz', 'hard_bounce', '2026-01-01T00:00:00.000Z', 'peers.test'),
          event('dee.fox', 'delivered', '2026-01-01T00:00:00.000Z', 'other.test'),
        ],
        100,
      );
      await store.feedback.record(
        theirs,
        [event('eve.gray', 'delivered', '2026-01-01T00:00:00.000Z', 'peers.test')],
        100,
      );
      assert.deepEqual((await store.feedback.deliveredAtDomain(mine, 'peers.test', 1000)).sort(), [
        'ann.lee@peers.test',
        'bo.park@peers.test',
      ]);
      assert.equal((await store.feedback.deliveredAtDomain(mine, 'peers.test', 1)).length, 1);
      assert.deepEqual(await store.feedback.deliveredAtDomain(theirs, 'peers.test', 1000), [
        'eve.gray@peers.test',
      ]);
      assert.deepEqual(await store.feedback.deliveredAtDomain(mine, 'unknown.test', 1000), []);
    });

    it('refuses, whole, a record that would pass the cap; duplicates do not count against it', async () => {
      const mine = await account();
      const first = [1, 2, 3].map((i) => event(`cap${i}`, 'hard_bounce', '2026-01-01T00:00:00.000Z'));
      assert.deepEqual(await store.feedback.record(mine, first, 4), {
        kind: 'recorded',
        recorded: 3,
        duplicates: 0,
      });
      const two = [4, 5].map((i) => event(`cap${i}`, 'hard_bounce', '2026-01-01T00:00:00.000Z'));
      assert.deepEqual(await store.feedback.record(mine, two, 4), { kind: 'full', stored: 3, maxEvents: 4 });
      assert.equal(await store.feedback.countEvents(mine), 3, 'nothing of a refused record is kept');
      // Three known events and one new one fit exactly.
      assert.deepEqual(await store.feedback.record(mine, [...first, two[0]!], 4), {
        kind: 'recorded',
        recorded: 1,
        duplicates: 3,
      });
      assert.deepEqual(await store.feedback.record(mine, first, 4), {
        kind: 'recorded',
        recorded: 0,
        duplicates: 3,
      });
    });

    it('keeps the cap exact under concurrent records on two connections', async () => {
      const mine = await account();
      // On PostgreSQL from two pools, as two processes. Embedded SQLite is one process with one
      // connection, whose transactions queue on it; two in one process would block each other's
      // synchronous busy wait, which no deployment does.
      const other = target.kind === 'postgres' ? second : store;
      const attempts = Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? store : other).feedback.record(
          mine,
          [
            event(`race${i}a`, 'delivered', '2026-01-01T00:00:00.000Z'),
            event(`race${i}b`, 'delivered', '2026-01-01T00:00:00.000Z'),
          ],
          10,
        ),
      );
      const outcomes = await Promise.all(attempts);
      const recorded = outcomes.filter((outcome) => outcome.kind === 'recorded');
      assert.equal(recorded.length, 5, JSON.stringify(outcomes));
      assert.equal(await store.feedback.countEvents(mine), 10);
    });

    it('records thousands of events in one call (chunked under the bound-parameter limits)', async () => {
      const mine = await account();
      const many = Array.from({ length: 2_345 }, (_, i) =>
        event(`bulk${i}`, i % 3 === 0 ? 'hard_bounce' : 'delivered', '2026-04-01T00:00:00.000Z', 'bulk.test'),
      );
      assert.deepEqual(await store.feedback.record(mine, many, 1_000_000), {
        kind: 'recorded',
        recorded: 2_345,
        duplicates: 0,
      });
      assert.deepEqual(await store.feedback.record(mine, many, 1_000_000), {
        kind: 'recorded',
        recorded: 0,
        duplicates: 2_345,
      });
      const stats = await store.feedback.domainStats(mine, 'bulk.test');
      assert.equal(stats.addresses, 2_345);
      assert.equal(stats.bounced, 782);
    });

    it("removes an account's feedback with the account", async () => {
      const mine = await account();
      await store.feedback.record(mine, [event('gone', 'hard_bounce', '2026-01-01T00:00:00.000Z')], 100);
      await store.deleteAccount(mine);
      assert.equal(await store.feedback.countEvents(mine), 0);
      assert.deepEqual(await store.feedback.outcomeOf(mine, 'gone@example.test'), NONE);
    });
  });
}
