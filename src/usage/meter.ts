/**
 * What a request or a list is measured against: its account's figures (the plan with an
 * operator's overrides), shared by all its keys, and the key's own lower caps.
 */
import { effectiveLimits, type Plan } from '../accounts/plans.ts';
import type { Account, AccountStore, ApiKeyRecord, Figures } from '../accounts/ports.ts';
import type { Ceiling, UsageOwner, Used } from './ports.ts';

export interface Meter extends UsageOwner {
  /** The account's figures. */
  limits: Required<Plan>;
  /** The key's own caps; null: the account's figure applies. */
  caps: Figures;
}

/** The meter of a key of an account. */
export function meterFor(plans: Readonly<Record<string, Plan>>, account: Account, key: ApiKeyRecord): Meter {
  return {
    accountId: account.id,
    keyId: key.id,
    limits: effectiveLimits(plans, account.plan, account),
    caps: key.caps,
  };
}

/** The meter of the key with this id, with its record; null when the key or its account is gone. */
export async function meterOfKey(
  store: Pick<AccountStore, 'findApiKeyById' | 'findAccount'>,
  plans: Readonly<Record<string, Plan>>,
  keyId: string,
): Promise<{ key: ApiKeyRecord; meter: Meter } | null> {
  const key = await store.findApiKeyById(keyId);
  if (key === null) return null;
  const account = await store.findAccount(key.accountId);
  return account === null ? null : { key, meter: meterFor(plans, account, key) };
}

/** The monthly verification ceilings. */
export function verificationCeiling(meter: Meter): Ceiling {
  return { account: meter.limits.monthlyVerifications, key: meter.caps.monthlyQuota };
}

/** The monthly bulk-request ceilings. */
export function bulkCeiling(meter: Meter): Ceiling {
  return { account: meter.limits.monthlyBulkRequests, key: meter.caps.bulkQuota };
}

/** The smaller of the ceiling that applies to the key and what the account has left. */
export function remainingUnder(ceiling: Ceiling, used: Used): number {
  const account = ceiling.account - used.account;
  const key = ceiling.key === null ? Number.POSITIVE_INFINITY : ceiling.key - used.key;
  return Math.max(0, Math.min(account, key));
}

/** The figure the key is held to: its cap when lower than the account's. */
export function keyLimit(ceiling: Ceiling): number {
  return ceiling.key === null ? ceiling.account : Math.min(ceiling.key, ceiling.account);
}
