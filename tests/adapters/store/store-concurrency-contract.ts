/**
 * The store contract's concurrency half: quota charges stay exact when requests race on one
 * instance, on two instances, and from separate processes; start-ups racing on a fresh database
 * apply each migration once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migrateOnly, openStore } from '../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../src/store.ts';
import { runJsonProcesses } from '../../helpers/json-processes.ts';
import {
  ALL_MIGRATIONS,
  accountUsage,
  atMost,
  createKey,
  ownerOf,
  type StoreContractTarget,
} from './store-fixtures.ts';
import type { StoreProcessJob } from './store-process.ts';

const PROCESS_SCRIPT = fileURLToPath(new URL('./store-process.ts', import.meta.url));

/** Registers the concurrency cases for one backend. */
export function storeConcurrencyContract(target: StoreContractTarget): void {
  describe(`${target.kind} store under concurrency`, () => {
    let store: Store;
    let second: Store;
    before(async () => {
      [store, second] = await Promise.all([openStore(target.options), openStore(target.options)]);
    });
    after(async () => {
      await Promise.all([store.close(), second.close()]);
    });

    it('grants exactly 50 of 200 concurrent single charges against a limit of 50', async () => {
      const key = await createKey(store);
      const charges = await Promise.all(
        Array.from({ length: 200 }, () => store.chargeVerifications(ownerOf(key), '2026-01', 1, atMost(50))),
      );
      const granted = charges.filter((charge) => charge.granted === 1);
      assert.equal(granted.length, 50);
      assert.ok(charges.every((charge) => charge.granted === 0 || charge.granted === 1));
      // Each grant saw its own state: the totals after them are 1..50, each once.
      assert.deepEqual(sorted(granted.map((charge) => charge.used.account)), range(1, 50));
      assert.equal((await accountUsage(store, key, '2026-01')).verifications, 50);
    });

    it('grants 30 concurrent charges of 7 against 100 as 14 full, one partial of 2, the rest none', async () => {
      const key = await createKey(store);
      const charges = await Promise.all(
        Array.from({ length: 30 }, () => store.chargeVerifications(ownerOf(key), '2026-02', 7, atMost(100))),
      );
      const grants = charges.map((charge) => charge.granted);
      assert.equal(
        grants.reduce((sum, grant) => sum + grant, 0),
        100,
      );
      assert.deepEqual(sorted(grants), [...Array(15).fill(0), 2, ...Array(14).fill(7)]);
      const partial = charges.find((charge) => charge.granted === 2);
      assert.equal(partial?.used.account, 100);
      assert.equal((await accountUsage(store, key, '2026-02')).verifications, 100);
    });

    it('grants exactly the bulk limit to concurrent bulk charges', async () => {
      const key = await createKey(store);
      const charges = await Promise.all(
        Array.from({ length: 40 }, () => store.chargeBulkRequest(ownerOf(key), '2026-03', atMost(10))),
      );
      const granted = charges.filter((charge) => charge.granted);
      assert.deepEqual(sorted(granted.map((charge) => charge.used.account)), range(1, 10));
      assert.ok(charges.filter((charge) => !charge.granted).every((charge) => charge.used.account === 10));
      assert.equal((await accountUsage(store, key, '2026-03')).bulkRequests, 10);
    });

    it('keeps one exact count when refunds race charges', async () => {
      const key = await createKey(store);
      await store.chargeVerifications(ownerOf(key), '2026-04', 50, atMost(50));
      const work = [
        ...Array.from({ length: 20 }, () =>
          store.refundVerifications(ownerOf(key), '2026-04', 1).then(() => 0),
        ),
        ...Array.from({ length: 40 }, () =>
          store.chargeVerifications(ownerOf(key), '2026-04', 1, atMost(50)).then((charge) => charge.granted),
        ),
      ];
      const granted = (await Promise.all(work)).reduce((sum, grant) => sum + grant, 0);
      const used = (await accountUsage(store, key, '2026-04')).verifications;
      assert.equal(used, 50 - 20 + granted);
      assert.ok(used <= 50);
    });

    it('shares one exact count between two store instances charging at once', async () => {
      const key = await createKey(store);
      const charge = (on: Store) => on.chargeVerifications(ownerOf(key), '2026-05', 1, atMost(50));
      const charges = await Promise.all(
        Array.from({ length: 200 }, (_, i) => charge(i % 2 === 0 ? store : second)),
      );
      assert.equal(
        charges.reduce((sum, one) => sum + one.granted, 0),
        50,
      );
      assert.equal((await accountUsage(second, key, '2026-05')).verifications, 50);
    });

    it('draws two keys of one account on one quota, exactly, across two instances', async () => {
      const first = await createKey(store);
      const other = await createKey(store, { accountId: first.accountId });
      const charges = await Promise.all(
        Array.from({ length: 160 }, (_, i) =>
          (i % 2 === 0 ? store : second).chargeVerifications(
            ownerOf(i % 4 < 2 ? first : other),
            '2026-07',
            1,
            atMost(50),
          ),
        ),
      );
      assert.equal(
        charges.reduce((sum, one) => sum + one.granted, 0),
        50,
      );
      const [a, b] = await Promise.all([
        store.usage(ownerOf(first), '2026-07'),
        store.usage(ownerOf(other), '2026-07'),
      ]);
      assert.equal(a.account.verifications, 50);
      assert.equal(a.key.verifications + b.key.verifications, 50);
      assert.ok(a.key.verifications > 0 && b.key.verifications > 0, 'both keys were served');
    });

    it("holds a key to its own cap below the account's while another key uses the rest", async () => {
      const capped = await createKey(store);
      const free = await createKey(store, { accountId: capped.accountId });
      const onCapped = { account: 100, key: 20 };
      const charges = await Promise.all([
        ...Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? store : second).chargeVerifications(ownerOf(capped), '2026-08', 1, onCapped),
        ),
        ...Array.from({ length: 90 }, (_, i) =>
          (i % 2 === 0 ? store : second).chargeVerifications(ownerOf(free), '2026-08', 1, atMost(100)),
        ),
      ]);
      const granted = (from: number, to: number) =>
        charges.slice(from, to).reduce((sum, one) => sum + one.granted, 0);
      assert.equal(granted(0, 60), 20);
      assert.equal(granted(60, 150), 80);
      const usage = await store.usage(ownerOf(capped), '2026-08');
      assert.deepEqual([usage.account.verifications, usage.key.verifications], [100, 20]);
      // A partial grant: the key's cap cuts a batch short, and the account keeps what it refused.
      const batch = await store.chargeVerifications(ownerOf(capped), '2026-09', 30, {
        account: 100,
        key: 25,
      });
      assert.deepEqual(batch, { granted: 25, used: { account: 25, key: 25 } });
      const refused = await store.chargeVerifications(ownerOf(free), '2026-09', 90, {
        account: 100,
        key: null,
      });
      assert.deepEqual(refused, { granted: 75, used: { account: 100, key: 75 } });
      const bulk = await Promise.all(
        Array.from({ length: 10 }, () =>
          second.chargeBulkRequest(ownerOf(capped), '2026-09', { account: 8, key: 3 }),
        ),
      );
      assert.equal(bulk.filter((one) => one.granted).length, 3);
      assert.equal((await store.usage(ownerOf(free), '2026-09')).account.bulkRequests, 3);
    });

    it('applies each migration once when start-ups in one process race on a fresh database', async () => {
      const options = await target.freshDatabase();
      const applied = await Promise.all([migrateOnly(options), migrateOnly(options), migrateOnly(options)]);
      assert.deepEqual(sorted(applied.map((names) => names.join(','))), ['', '', ALL_MIGRATIONS.join(',')]);
      const [one, two] = await Promise.all([openStore(options), openStore(options)]);
      await Promise.all([one.ping(), two.ping()]);
      await Promise.all([one.close(), two.close()]);
      assert.deepEqual(await migrateOnly(options), []);
    });

    it('applies each migration once when separate processes start at once on fresh databases', async () => {
      // Several rounds, each on its own fresh database: one race can be won cleanly by chance.
      const databases = await Promise.all(Array.from({ length: 8 }, () => target.freshDatabase()));
      const job = { mode: 'migrate', databases, startAt: Date.now() + 3_000, spacingMs: 250 } as const;
      const outcomes = await runStoreProcesses([job, job, job]);
      const applied = outcomes.map((outcome) => (outcome as { applied: string[][] }).applied);
      for (const [round] of databases.entries()) {
        const names = applied.map((perProcess) => perProcess[round]?.join(',') ?? 'missing');
        assert.deepEqual(sorted(names), ['', '', ALL_MIGRATIONS.join(',')], `round ${round}`);
      }
    });

    it('keeps charges exact across separate processes', async () => {
      const key = await createKey(store);
      const startAt = Date.now() + 3_000;
      // Small pools: several test runs may share one server's 100 connections.
      const job = {
        mode: 'charge',
        options: { ...target.options, poolSize: 4 },
        startAt,
        keyId: key.id,
        accountId: key.accountId,
        month: '2026-06',
      } as const;
      const outcomes = await runStoreProcesses(
        Array.from({ length: 3 }, () => ({ ...job, charges: 100, limit: 120 }) satisfies StoreProcessJob),
      );
      const granted = outcomes.map((outcome) => (outcome as { granted: number }).granted);
      assert.equal(
        granted.reduce((sum, one) => sum + one, 0),
        120,
      );
      assert.equal((await accountUsage(store, key, '2026-06')).verifications, 120);
    });
  });
}

/** Runs each job in its own Node process; resolves with their outcomes, rejects if one fails. */
function runStoreProcesses(jobs: StoreProcessJob[]): Promise<unknown[]> {
  return runJsonProcesses<unknown>(PROCESS_SCRIPT, jobs, 'store process');
}

function sorted<T extends string | number>(values: T[]): T[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
