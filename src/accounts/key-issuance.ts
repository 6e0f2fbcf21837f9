/**
 * Issuing an API key: the one path the CLI, the dashboard, the tests and the benchmarks take. A key
 * made without an account gets an account of its own, on the given plan and figures, so one command
 * onboards an API-only customer; a key made in an existing account may carry its own lower caps.
 */
import { generateApiKey } from './api-keys.ts';
import type { AccountStore, ApiKeyRecord, Figures } from './ports.ts';

/** What a new key is. */
export type KeyRequest =
  | {
      /** A new account named after the key, on `plan` with these overrides of its figures. */
      accountId?: undefined;
      name: string;
      plan: string;
      monthlyQuota?: number | null;
      bulkQuota?: number | null;
      rateLimit?: number | null;
    }
  | {
      /** An existing account; the figures are the key's own caps. */
      accountId: string;
      name: string;
      caps?: Partial<Figures>;
    };

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

const NO_CAPS: Figures = { monthlyQuota: null, bulkQuota: null, rateLimit: null };

/** Creates a key (and its account when none is given); the key is returned once, never stored. */
export async function issueApiKey(
  store: Pick<AccountStore, 'createAccount' | 'findAccount' | 'createApiKey'>,
  request: KeyRequest,
): Promise<IssuedKey> {
  let accountId: string;
  let caps = NO_CAPS;
  if (request.accountId === undefined) {
    const account = await store.createAccount({
      name: request.name,
      plan: request.plan,
      monthlyQuota: request.monthlyQuota ?? null,
      bulkQuota: request.bulkQuota ?? null,
      rateLimit: request.rateLimit ?? null,
    });
    accountId = account.id;
  } else {
    if ((await store.findAccount(request.accountId)) === null)
      throw new UnknownAccountError(request.accountId);
    accountId = request.accountId;
    caps = { ...NO_CAPS, ...request.caps };
  }
  const generated = generateApiKey();
  const record = await store.createApiKey({
    accountId,
    kind: 'api',
    name: request.name,
    keyHash: generated.keyHash,
    displayPrefix: generated.displayPrefix,
    caps,
  });
  return { record, key: generated.key };
}
