/**
 * The SQLite store charges the API's verifications of one turn as one charge per key and month:
 * what each caller is granted and told must be what charging them one after another gives, at a
 * limit, across keys, accounts and months in the same turn.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueApiKey } from '../../../../src/accounts/key-issuance.ts';
import { openStore } from '../../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../../src/store.ts';
import type { UsageOwner } from '../../../../src/usage/ports.ts';

describe('verification charges of one turn', () => {
  let dataDir: string;
  let store: Store;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailvet-coalesced-'));
    store = await openStore({ dataDir });
  });
  after(async () => {
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const owner = async (): Promise<UsageOwner> => {
    const issued = await issueApiKey(store, { name: 'k', plan: 'free' });
    return { accountId: issued.record.accountId, keyId: issued.record.id };
  };

  test('asked together at the limit: granted in arrival order, each told the counts after its own charge', async () => {
    const who = await owner();
    const ceiling = { account: 6, key: null };
    const asked = [5, 1, 3, 0, 2];
    const charges = await Promise.all(
      asked.map((requested) => store.chargeVerifications(who, '2026-11', requested, ceiling)),
    );
    assert.deepEqual(
      charges.map((charge) => charge.granted),
      [5, 1, 0, 0, 0],
    );
    assert.deepEqual(
      charges.map((charge) => charge.used.account),
      [5, 6, 6, 6, 6],
    );
    const usage = await store.usage(who, '2026-11');
    assert.equal(usage.account.verifications, 6);
    assert.equal(usage.key.verifications, 6);
  });

  test('one after another gives the same', async () => {
    const who = await owner();
    const ceiling = { account: 6, key: null };
    const charges = [];
    for (const requested of [5, 1, 3, 0, 2])
      charges.push(await store.chargeVerifications(who, '2026-11', requested, ceiling));
    assert.deepEqual(
      charges.map((charge) => [charge.granted, charge.used.account]),
      [
        [5, 5],
        [1, 6],
        [0, 6],
        [0, 6],
        [0, 6],
      ],
    );
  });

  test('a key cap below the account, two keys of one account, another account and another month in one turn', async () => {
    const first = await owner();
    const second = await owner();
    const sameAccount = { ...second, accountId: first.accountId };
    const capped = { account: 100, key: 2 };
    const [a, b, c, d, e] = await Promise.all([
      store.chargeVerifications(first, '2026-11', 1, capped),
      store.chargeVerifications(first, '2026-11', 3, capped),
      store.chargeVerifications(sameAccount, '2026-11', 4, { account: 100, key: null }),
      store.chargeVerifications(second, '2026-11', 7, { account: 100, key: null }),
      store.chargeVerifications(first, '2026-12', 1, capped),
    ]);
    assert.deepEqual([a.granted, b.granted], [1, 1], 'the key cap of 2, first come first granted');
    assert.deepEqual([a.used.key, b.used.key], [1, 2]);
    assert.equal(c.granted, 4);
    assert.equal(c.used.key, 4, 'the second key of the account counts for itself');
    assert.equal(d.granted, 7);
    assert.equal(d.used.account, 7, 'another account is charged on its own');
    assert.equal(e.granted, 1);
    assert.equal(e.used.account, 1, 'another month starts from nothing');
    const november = await store.usage(first, '2026-11');
    assert.equal(november.account.verifications, 6, '1 + 1 on the first key, 4 on the second');
    assert.equal(november.key.verifications, 2);
  });
});
