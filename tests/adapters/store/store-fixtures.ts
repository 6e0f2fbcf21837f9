/**
 * What the store contract suites share: the target a backend's test file describes, and keys.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../../../src/accounts/ports.ts';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.ts';
import type { StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { Store } from '../../../src/store.ts';

/** What a backend's test file provides. */
export interface StoreContractTarget {
  kind: Store['kind'];
  /** The suite's database: every `openStore(options)` is a new instance (own connections) on it. */
  options: StoreOptions;
  /** A new, empty database not migrated yet, for the start-up cases. */
  freshDatabase(): Promise<StoreOptions>;
}

/** A fresh key (its own account unless one is given) with a unique hash. */
export async function createKey(store: Store, overrides: Partial<ApiKeyRecord> = {}): Promise<ApiKeyRecord> {
  const accountId = overrides.accountId ?? (await store.createAccount('Test')).id;
  return store.createApiKey({
    accountId,
    name: overrides.name ?? 'test key',
    plan: overrides.plan ?? 'free',
    keyHash: overrides.keyHash ?? `hash-${randomUUID()}`,
    displayPrefix: overrides.displayPrefix ?? 'mv_test_0000',
    monthlyQuota: overrides.monthlyQuota ?? null,
    bulkQuota: overrides.bulkQuota ?? null,
    rateLimit: overrides.rateLimit ?? null,
  });
}

/** Every migration's name, in the order they run: what a fresh database gets. */
export const ALL_MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();
