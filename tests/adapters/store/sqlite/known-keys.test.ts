/**
 * The SQLite store keeps the keys it has authenticated while nothing changed: a revocation or a
 * plan change through this store is read on the next lookup, and a commit by another connection on
 * the file (the command line's `keys revoke`, another process) within CHECK_INTERVAL_MS.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashApiKey } from '../../../../src/accounts/api-keys.ts';
import { issueApiKey } from '../../../../src/accounts/key-issuance.ts';
import { openStore } from '../../../../src/adapters/store/open-store.ts';
import { CHECK_INTERVAL_MS } from '../../../../src/adapters/store/sqlite/known-keys.ts';
import type { Store } from '../../../../src/store.ts';

describe('keys known to the SQLite store', () => {
  let dataDir: string;
  let store: Store;
  let other: Store;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailvet-known-keys-'));
    store = await openStore({ dataDir });
    // A second connection on the same file, as `mailvet keys revoke` opens one.
    other = await openStore({ dataDir });
  });
  after(async () => {
    await other?.close();
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const issue = async (on: Store) => {
    const issued = await issueApiKey(on, { name: 'k', plan: 'free' });
    return { id: issued.record.id, hash: hashApiKey(issued.key), accountId: issued.record.accountId };
  };

  test('while nothing changed, the same lookup is answered without asking the database again', async () => {
    const key = await issue(store);
    const first = await store.findApiKeyByHash(key.hash);
    assert.ok(first !== null);
    assert.equal(await store.findApiKeyByHash(key.hash), first, 'the same object: kept');
  });

  test('a key revoked through this store is revoked on the next lookup', async () => {
    const key = await issue(store);
    assert.equal((await store.findApiKeyByHash(key.hash))?.key.revokedAt, null);
    assert.equal(await store.revokeApiKey(key.id), true);
    assert.notEqual((await store.findApiKeyByHash(key.hash))?.key.revokedAt, null);
  });

  /** Lets the documented bound pass: another connection's commit is read after it. */
  const pastTheBound = () => sleep(CHECK_INTERVAL_MS + 20);

  test('a key revoked by another connection is revoked here within the bound', async () => {
    const key = await issue(store);
    assert.equal((await store.findApiKeyByHash(key.hash))?.key.revokedAt, null);
    assert.equal(await other.revokeApiKey(key.id), true);
    await pastTheBound();
    assert.notEqual((await store.findApiKeyByHash(key.hash))?.key.revokedAt, null);
  });

  test("an account's plan and a key's caps changed here or elsewhere are read on the next lookup", async () => {
    const key = await issue(store);
    assert.equal((await store.findApiKeyByHash(key.hash))?.account.plan, 'free');
    await other.updateAccount(key.accountId, { plan: 'pro' });
    await pastTheBound();
    assert.equal((await store.findApiKeyByHash(key.hash))?.account.plan, 'pro');
    await store.updateAccount(key.accountId, { plan: 'starter' });
    assert.equal((await store.findApiKeyByHash(key.hash))?.account.plan, 'starter');
    await store.updateApiKey(key.accountId, key.id, { caps: { monthlyQuota: 7 } });
    assert.equal((await store.findApiKeyByHash(key.hash))?.key.caps.monthlyQuota, 7);
    await other.deleteAccount(key.accountId);
    await pastTheBound();
    assert.equal(await store.findApiKeyByHash(key.hash), null);
  });

  test('an unknown key is not remembered as unknown', async () => {
    const account = await store.createAccount({
      name: 'later',
      plan: 'free',
      monthlyQuota: null,
      bulkQuota: null,
      rateLimit: null,
    });
    const hash = 'a'.repeat(64);
    assert.equal(await store.findApiKeyByHash(hash), null);
    await store.createApiKey({
      accountId: account.id,
      kind: 'api',
      name: 'later',
      keyHash: hash,
      displayPrefix: 'mv_later',
      caps: { monthlyQuota: null, bulkQuota: null, rateLimit: null },
    });
    assert.equal((await store.findApiKeyByHash(hash))?.key.name, 'later');
  });
});
