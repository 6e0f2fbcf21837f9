/**
 * The month's usage of the account a key belongs to, by key id: what the quota tests assert on
 * (a key alone in its account counts the same on its own row).
 */
import { openStore } from '../../src/adapters/store/open-store.ts';
import type { Store } from '../../src/store.ts';
import { monthOf } from '../../src/usage/months.ts';
import type { Usage } from '../../src/usage/ports.ts';

export async function usageOfKey(
  store: Pick<Store, 'usage' | 'findApiKeyById'>,
  keyId: string,
  month: string,
): Promise<Usage> {
  const key = await store.findApiKeyById(keyId);
  if (key === null) throw new Error(`no key ${keyId}`);
  return (await store.usage({ accountId: key.accountId, keyId }, month)).account;
}

/**
 * The verifications charged this month to a key's account, read through a store opened for the
 * question and closed after (the server under test, or one just killed, owns its own).
 */
export async function verificationsChargedIn(
  where: { dataDir: string } | { databaseUrl: string },
  keyId: string,
): Promise<number> {
  const store = await openStore('dataDir' in where ? where : { ...where, dataDir: '/nonexistent' });
  try {
    return (await usageOfKey(store, keyId, monthOf(new Date()))).verifications;
  } finally {
    await store.close();
  }
}
