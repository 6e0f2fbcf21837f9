/**
 * The month's usage of the account a key belongs to, by key id: what the quota tests assert on
 * (a key alone in its account counts the same on its own row).
 */
import type { Store } from '../../src/store.ts';
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
