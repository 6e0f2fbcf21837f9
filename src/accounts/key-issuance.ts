/**
 * Issuing an API key: the one path the CLI, the tests and the benchmarks take. A key made without
 * an account gets an account of its own, so two customers onboarded with two keys never see each
 * other's lists; sharing an account is an explicit choice (an existing account id).
 */
import { generateApiKey } from './api-keys.ts';
import type { AccountStore, ApiKeyRecord } from './ports.ts';

/** What a new key is: its account (a new one when omitted), name, plan and per-key figures. */
export interface KeyRequest {
  /** An existing account to add the key to; omitted: a new account named after the key. */
  accountId?: string;
  name: string;
  plan: string;
  monthlyQuota?: number | null;
  bulkQuota?: number | null;
  rateLimit?: number | null;
}

/** A key as issued: the stored record, and the key itself, shown once. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
}

/** Thrown when `accountId` names no account. */
export class UnknownAccountError extends Error {
  constructor(readonly accountId: string) {
    super(`no account with id ${accountId}`);
    this.name = 'UnknownAccountError';
  }
}

/** Creates a key (and its account when none is given); the key is returned once, never stored. */
export async function issueApiKey(
  store: Pick<AccountStore, 'createAccount' | 'findAccount' | 'createApiKey'>,
  request: KeyRequest,
): Promise<IssuedKey> {
  let accountId = request.accountId;
  if (accountId === undefined) {
    accountId = (await store.createAccount(request.name)).id;
  } else if ((await store.findAccount(accountId)) === null) {
    throw new UnknownAccountError(accountId);
  }
  const generated = generateApiKey();
  const record = await store.createApiKey({
    accountId,
    name: request.name,
    plan: request.plan,
    keyHash: generated.keyHash,
    displayPrefix: generated.displayPrefix,
    monthlyQuota: request.monthlyQuota ?? null,
    bulkQuota: request.bulkQuota ?? null,
    rateLimit: request.rateLimit ?? null,
  });
  return { record, key: generated.key };
}
