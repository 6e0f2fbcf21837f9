/**
 * What the store contract suites share: the target a backend's test file describes, and keys.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../../../src/accounts/ports.ts';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.ts';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../src/store.ts';
import type { Ceiling, Usage, UsageOwner, Used } from '../../../src/usage/ports.ts';

/** What a backend's test file provides. */
export interface StoreContractTarget {
  kind: Store['kind'];
  /** The suite's database: every `openStore(options)` is a new instance (own connections) on it. */
  options: StoreOptions;
  /** A new, empty database not migrated yet, for the start-up cases. */
  freshDatabase(): Promise<StoreOptions>;
}

/** A fresh key (its own account on `plan` unless one is given) with a unique hash. */
export async function createKey(
  store: Store,
  overrides: Partial<ApiKeyRecord> & { plan?: string } = {},
): Promise<ApiKeyRecord> {
  const accountId =
    overrides.accountId ?? (await store.createAccount({ name: 'Test', plan: overrides.plan ?? 'free' })).id;
  return store.createApiKey({
    accountId,
    kind: overrides.kind ?? 'api',
    name: overrides.name ?? 'test key',
    keyHash: overrides.keyHash ?? `hash-${randomUUID()}`,
    displayPrefix: overrides.displayPrefix ?? 'mv_test_0000',
    caps: overrides.caps ?? { monthlyQuota: null, bulkQuota: null, rateLimit: null },
  });
}

/** Every migration's name, in the order they run: what a fresh database gets. */
export const ALL_MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();

/** Whose use a charge on `key` counts. */
export function ownerOf(key: Pick<ApiKeyRecord, 'id' | 'accountId'>): UsageOwner {
  return { accountId: key.accountId, keyId: key.id };
}

/** A ceiling of `limit` for the account and no cap of the key's own. */
export function atMost(limit: number): Ceiling {
  return { account: limit, key: null };
}

/** The counts of a key alone in its account: the account's and the key's are the same. */
export function both(count: number): Used {
  return { account: count, key: count };
}

/** The month's usage of the key's account. */
export async function accountUsage(
  store: Pick<Store, 'usage'>,
  key: Pick<ApiKeyRecord, 'id' | 'accountId'>,
  month: string,
): Promise<Usage> {
  return (await store.usage(ownerOf(key), month)).account;
}

/** A new account with a connected (Mailchimp) integration: the owner of watches, runs and schedules. */
export async function connectedIntegration(
  store: Pick<Store, 'createAccount' | 'integrations'>,
  name = 'Integrator',
): Promise<{ accountId: string; integrationId: string }> {
  const account = await store.createAccount({ name, plan: 'free' });
  const integrationId = `int_${randomUUID()}`;
  await store.integrations.createIntegration({
    id: integrationId,
    accountId: account.id,
    provider: 'mailchimp',
    accountName: 'Shop',
    providerAccountId: 'x',
    dc: 'us1',
    state: 'connected',
    message: null,
    authKind: 'api_key',
    sealedCredential: 'v1.x',
    createdAt: '2026-11-26T10:00:00.000Z',
  });
  return { accountId: account.id, integrationId };
}
