/**
 * The store contract: one suite, run against every backend (SQLite, PostgreSQL). A backend's test
 * file hands in where its database is and how to make a fresh one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { ApiKeyRecord } from '../../../src/accounts/ports.ts';
import { openStore } from '../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../src/store.ts';
import { storeConcurrencyContract } from './store-concurrency-contract.ts';
import { createKey, type StoreContractTarget } from './store-fixtures.ts';

export type { StoreContractTarget };

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Registers the whole contract suite for one backend. */
export function storeContract(target: StoreContractTarget): void {
  describe(`${target.kind} store contract`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(target.options);
    });
    after(async () => {
      await store.close();
    });
    const newKey = (overrides: Partial<ApiKeyRecord> = {}) => createKey(store, overrides);

    it('reports its kind and answers ping', async () => {
      assert.equal(store.kind, target.kind);
      await store.ping();
    });

    it('creates accounts with distinct ids and ISO creation instants', async () => {
      const first = await store.createAccount('Acme');
      const second = await store.createAccount('Acme');
      assert.equal(first.name, 'Acme');
      assert.notEqual(first.id, second.id);
      assert.match(first.createdAt, ISO_INSTANT);
    });

    it('finds an account by id, and null for an unknown id', async () => {
      const created = await store.createAccount('Findable');
      assert.deepEqual(await store.findAccount(created.id), created);
      assert.equal(await store.findAccount(randomUUID()), null);
    });

    it('creates a key and finds it by hash, with plan, prefix and null overrides', async () => {
      const account = await store.createAccount('Keys');
      const keyHash = `hash-${randomUUID()}`;
      const created = await store.createApiKey({
        accountId: account.id,
        name: 'ci',
        plan: 'starter',
        keyHash,
        displayPrefix: 'mv_live_ab12',
        monthlyQuota: null,
        bulkQuota: null,
        rateLimit: null,
      });
      assert.match(created.createdAt, ISO_INSTANT);
      assert.equal(created.revokedAt, null);
      assert.deepEqual(await store.findApiKeyByHash(keyHash), created);
      assert.equal(await store.findApiKeyByHash(`${keyHash}-other`), null);
      assert.equal(await store.findApiKeyByHash(''), null);
    });

    it('stores per-key overrides, quotas beyond 32 bits included', async () => {
      const key = await newKey({ monthlyQuota: 5_000_000_000, bulkQuota: 0, rateLimit: 7 });
      const found = await store.findApiKeyByHash(key.keyHash);
      assert.equal(found?.monthlyQuota, 5_000_000_000);
      assert.equal(found?.bulkQuota, 0);
      assert.equal(found?.rateLimit, 7);
    });

    it('refuses a second key with the same hash, and a key for an unknown account', async () => {
      const key = await newKey();
      await assert.rejects(createKey(store, { accountId: key.accountId, keyHash: key.keyHash }));
      await assert.rejects(createKey(store, { accountId: `missing-${randomUUID()}` }));
    });

    it('lists keys of one account oldest first, and all keys without one', async () => {
      const account = await store.createAccount('Listing');
      const first = await newKey({ accountId: account.id, name: 'first' });
      await setTimeout(5); // creation instants have millisecond precision
      const second = await newKey({ accountId: account.id, name: 'second' });
      const elsewhere = await newKey();
      assert.deepEqual(await store.listApiKeys(account.id), [first, second]);
      const all = (await store.listApiKeys()).map((key) => key.id);
      for (const id of [first.id, second.id, elsewhere.id]) assert.ok(all.includes(id));
      assert.deepEqual(await store.listApiKeys(`none-${randomUUID()}`), []);
    });

    it('revokes a key at once, and only once', async () => {
      const key = await newKey();
      assert.equal(await store.revokeApiKey(key.id), true);
      const found = await store.findApiKeyByHash(key.keyHash);
      assert.match(found?.revokedAt ?? '', ISO_INSTANT);
      assert.equal(await store.revokeApiKey(key.id), false);
      assert.equal((await store.findApiKeyByHash(key.keyHash))?.revokedAt, found?.revokedAt);
      assert.equal(await store.revokeApiKey(`missing-${randomUUID()}`), false);
      const listed = (await store.listApiKeys(key.accountId)).find((record) => record.id === key.id);
      assert.equal(listed?.revokedAt, found?.revokedAt);
    });

    it('starts every key and month at zero usage', async () => {
      const key = await newKey();
      assert.deepEqual(await store.usage(key.id, '2025-01'), { verifications: 0, bulkRequests: 0 });
      assert.deepEqual(await store.usage(`missing-${randomUUID()}`, '2025-01'), {
        verifications: 0,
        bulkRequests: 0,
      });
    });

    it('counts usage per key and per month, independently', async () => {
      const [one, two] = [await newKey(), await newKey()];
      assert.deepEqual(await store.chargeVerifications(one.id, '2025-01', 3, 10), { granted: 3, used: 3 });
      assert.deepEqual(await store.chargeVerifications(one.id, '2025-02', 10, 10), { granted: 10, used: 10 });
      assert.deepEqual(await store.chargeVerifications(two.id, '2025-01', 4, 10), { granted: 4, used: 4 });
      assert.deepEqual(await store.chargeBulkRequest(one.id, '2025-02', 5), { granted: true, used: 1 });
      assert.deepEqual(await store.usage(one.id, '2025-01'), { verifications: 3, bulkRequests: 0 });
      assert.deepEqual(await store.usage(one.id, '2025-02'), { verifications: 10, bulkRequests: 1 });
      assert.deepEqual(await store.usage(two.id, '2025-01'), { verifications: 4, bulkRequests: 0 });
      assert.deepEqual(await store.usage(two.id, '2025-02'), { verifications: 0, bulkRequests: 0 });
    });

    it('grants part of a charge at the cap, then nothing', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 95, 100), {
        granted: 95,
        used: 95,
      });
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 10, 100), {
        granted: 5,
        used: 100,
      });
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 1, 100), { granted: 0, used: 100 });
      // A lower limit (a plan changed mid-month) refuses without touching what was used.
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 1, 40), { granted: 0, used: 100 });
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 3, 102), { granted: 2, used: 102 });
    });

    it('charges against a quota beyond 32 bits', async () => {
      const key = await newKey();
      const limit = 2 ** 40;
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-03', 3, limit), { granted: 3, used: 3 });
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-03', limit), { granted: true, used: 1 });
    });

    it('grants nothing with a limit of 0 or a request of 0, and makes no usage', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-04', 5, 0), { granted: 0, used: 0 });
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-04', 0, 10), { granted: 0, used: 0 });
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-04', 0), { granted: false, used: 0 });
      assert.deepEqual(await store.usage(key.id, '2025-04'), { verifications: 0, bulkRequests: 0 });
    });

    it('rejects counts that are negative or not whole (a caller bug)', async () => {
      const key = await newKey();
      await assert.rejects(store.chargeVerifications(key.id, '2025-04', -1, 10), RangeError);
      await assert.rejects(store.chargeVerifications(key.id, '2025-04', 1.5, 10), RangeError);
      await assert.rejects(store.refundVerifications(key.id, '2025-04', Number.NaN), RangeError);
    });

    it('refunds verifications, never below zero', async () => {
      const key = await newKey();
      await store.chargeVerifications(key.id, '2025-05', 10, 100);
      await store.refundVerifications(key.id, '2025-05', 3);
      assert.equal((await store.usage(key.id, '2025-05')).verifications, 7);
      await store.refundVerifications(key.id, '2025-05', 0);
      assert.equal((await store.usage(key.id, '2025-05')).verifications, 7);
      await store.refundVerifications(key.id, '2025-05', 50);
      assert.equal((await store.usage(key.id, '2025-05')).verifications, 0);
      await store.refundVerifications(key.id, '2025-06', 5);
      assert.deepEqual(await store.usage(key.id, '2025-06'), { verifications: 0, bulkRequests: 0 });
      // A refund frees room that the next charge may use.
      await store.chargeVerifications(key.id, '2025-05', 10, 10);
      await store.refundVerifications(key.id, '2025-05', 4);
      assert.deepEqual(await store.chargeVerifications(key.id, '2025-05', 9, 10), { granted: 4, used: 10 });
    });

    it('charges and refunds bulk requests one at a time, never below zero', async () => {
      const key = await newKey();
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-07', 2), { granted: true, used: 1 });
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-07', 2), { granted: true, used: 2 });
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-07', 2), { granted: false, used: 2 });
      await store.refundBulkRequest(key.id, '2025-07');
      assert.deepEqual(await store.chargeBulkRequest(key.id, '2025-07', 2), { granted: true, used: 2 });
      for (let i = 0; i < 4; i++) await store.refundBulkRequest(key.id, '2025-07');
      await store.refundBulkRequest(key.id, '2025-08');
      assert.deepEqual(await store.usage(key.id, '2025-07'), { verifications: 0, bulkRequests: 0 });
      assert.deepEqual(await store.usage(key.id, '2025-08'), { verifications: 0, bulkRequests: 0 });
    });
  });

  storeConcurrencyContract(target);
}
