/**
 * What the audit log shows of accounts and keys, in the API's field names: the settings whose
 * `before` and `after` an entry of a change records, and what a creation records. The API's routes
 * and the operators' commands record through the same functions, so an entry reads the same
 * whoever made the change.
 */
import type { Account, ApiKeyRecord } from '../accounts/ports.ts';

/** A key's name and own caps (null: the account's figure applies). */
export function keySettings(key: ApiKeyRecord) {
  return {
    name: key.name,
    rate_limit: key.caps.rateLimit,
    monthly_cap: key.caps.monthlyQuota,
    bulk_cap: key.caps.bulkQuota,
  };
}

/** An account's plan. */
export function accountPlan(account: Account) {
  return { plan: account.plan };
}

/** An operator's overrides of the plan's figures (null: the plan's figure applies). */
export function accountLimits(account: Account) {
  return {
    monthly_quota: account.monthlyQuota,
    bulk_quota: account.bulkQuota,
    rate_limit: account.rateLimit,
  };
}

/** An account's own settings. */
export function accountSettings(account: Account) {
  return { name: account.name };
}
