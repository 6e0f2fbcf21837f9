/**
 * `mailvet keys create|list|revoke|update`: manages API keys straight in the
 * store, no server needed. The key itself is printed once and never stored. A key made without
 * `--account` is a new customer: it gets an account of its own on the given plan and figures; with
 * `--account` the figures are the key's own caps below its account's.
 */
import { issueApiKey, type KeyRequest, UnknownAccountError } from '../accounts/key-issuance.ts';
import type { Account, ApiKeyRecord } from '../accounts/ports.ts';
import { changedFields } from '../audit/audit-trail.ts';
import { accountLimits, accountPlan, accountSettings, keySettings } from '../audit/described.ts';
import { loadConfig } from '../config.ts';
import { loadPlans } from '../container/store.ts';
import { recordOperatorChange } from './operator-audit.ts';
import { CAP_FLAGS, capFlags, knownPlan, optionalName, withStore } from './store-command.ts';
import { UsageError } from './usage-error.ts';

interface CreateOptions {
  name: string;
  account?: string;
  plan?: string;
  monthlyQuota?: string;
  bulkQuota?: string;
  rateLimit?: string;
  json?: boolean;
  /** Make the database when there is none (embedded). */
  init?: boolean;
}

/** `mailvet keys create`. */
export async function runKeysCreate(options: CreateOptions): Promise<void> {
  const name = optionalName(options.name)!;
  const figures = capFlags(options);
  const accountId = options.account?.trim();
  if (accountId !== undefined && accountId.length === 0)
    throw new UsageError('--account must name an account id');
  const plan = knownPlan(await loadPlans(loadConfig()), options.plan);
  const request: KeyRequest =
    accountId === undefined ? { name, plan, ...figures } : { accountId, name, caps: figures };
  await withStore(
    async (store, where) => {
      if (accountId !== undefined && options.plan !== undefined) {
        const account = await store.findAccount(accountId);
        // The plan is the account's: a key cannot have another (`accounts update` changes it).
        if (account !== null && account.plan !== plan) {
          throw new UsageError(
            `account ${accountId} is on plan ${account.plan}: the plan is the account's (mailvet accounts update ${accountId} --plan ${plan})`,
          );
        }
      }
      const { record, key } = await issueApiKey(store, request).catch((error: unknown) => {
        throw error instanceof UnknownAccountError ? new UsageError(error.message) : error;
      });
      const account = (await store.findAccount(record.accountId))!;
      if (accountId === undefined) {
        await recordOperatorChange(store, account.id, {
          action: 'account.created',
          targetId: account.id,
          details: { ...accountSettings(account), ...accountPlan(account), ...accountLimits(account) },
        });
      }
      await recordOperatorChange(store, account.id, {
        action: 'key.created',
        targetId: record.id,
        details: { ...keySettings(record), prefix: record.displayPrefix },
      });
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ ...publicKey(record, account), key }, null, 2)}\n`);
      } else {
        process.stdout.write(`${key}\n`);
        process.stderr.write(
          `created key ${record.id} "${record.name}" in account ${account.id} (plan ${account.plan}) in ${where}: store it now, it is not shown again\n`,
        );
      }
    },
    { init: options.init === true },
  );
}

/** `mailvet keys list`. */
export async function runKeysList(options: { json?: boolean }): Promise<void> {
  await withStore(async (store) => {
    const keys = await store.listApiKeys();
    const accounts = new Map((await store.listAccounts()).map((account) => [account.id, account]));
    if (options.json) {
      const shown = keys.map((key) => publicKey(key, accounts.get(key.accountId)));
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return;
    }
    if (keys.length === 0) {
      process.stdout.write('no keys yet: mailvet keys create --name NAME\n');
      return;
    }
    for (const key of keys) {
      const state = key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`;
      const line = [
        key.id,
        `${key.displayPrefix}…`,
        key.name,
        `account ${key.accountId}`,
        accounts.get(key.accountId)?.plan ?? '?',
        ...describeCaps(key),
        state,
      ].join('  ');
      process.stdout.write(`${line}\n`);
    }
  });
}

/** `mailvet keys update ID [--name N] [--rate-limit N] [--monthly-cap N] [--bulk-cap N]` ("none" removes a cap). */
export async function runKeysUpdate(
  id: string,
  options: { name?: string; rateLimit?: string; monthlyCap?: string; bulkCap?: string; json?: boolean },
): Promise<void> {
  const caps = capFlags(
    { monthlyQuota: options.monthlyCap, bulkQuota: options.bulkCap, rateLimit: options.rateLimit },
    true,
    CAP_FLAGS,
  );
  const name = optionalName(options.name);
  await withStore(async (store) => {
    const existing = await store.findApiKeyById(id);
    if (existing === null || existing.kind !== 'api') throw new UsageError(`no key with id ${id}`);
    const updated = (await store.updateApiKey(existing.accountId, id, {
      ...(name !== undefined && { name }),
      caps,
    }))!;
    const changed = changedFields(keySettings(existing), keySettings(updated));
    if (changed !== null)
      await recordOperatorChange(store, updated.accountId, {
        action: 'key.updated',
        targetId: id,
        details: changed,
      });
    const account = await store.findAccount(updated.accountId);
    if (options.json)
      process.stdout.write(`${JSON.stringify(publicKey(updated, account ?? undefined), null, 2)}\n`);
    else process.stdout.write(`updated ${id}: ${[updated.name, ...describeCaps(updated)].join('  ')}\n`);
  });
}

/** `mailvet keys revoke ID`. */
export async function runKeysRevoke(id: string): Promise<void> {
  await withStore(async (store) => {
    const key = await store.findApiKeyById(id);
    if (key === null || !(await store.revokeApiKey(id))) throw new UsageError(`no active key with id ${id}`);
    await recordOperatorChange(store, key.accountId, {
      action: 'key.revoked',
      targetId: id,
      details: { name: key.name, prefix: key.displayPrefix },
    });
    process.stdout.write(`revoked ${id}\n`);
  });
}

function describeCaps(key: ApiKeyRecord): string[] {
  return [
    key.caps.monthlyQuota !== null && `monthly cap ${key.caps.monthlyQuota}`,
    key.caps.bulkQuota !== null && `bulk cap ${key.caps.bulkQuota}`,
    key.caps.rateLimit !== null && `rate ${key.caps.rateLimit}/s`,
  ].filter((part): part is string => typeof part === 'string');
}

/** What the CLI shows of a key: everything but its hash. */
function publicKey(record: ApiKeyRecord, account: Account | undefined) {
  return {
    id: record.id,
    name: record.name,
    plan: account?.plan ?? null,
    account_id: record.accountId,
    prefix: record.displayPrefix,
    // The figures of the key's account, with the key's own caps.
    monthly_quota: account?.monthlyQuota ?? null,
    bulk_quota: account?.bulkQuota ?? null,
    rate_limit: account?.rateLimit ?? null,
    caps: {
      monthly_cap: record.caps.monthlyQuota,
      bulk_cap: record.caps.bulkQuota,
      rate_limit: record.caps.rateLimit,
    },
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt,
    revoked_at: record.revokedAt,
  };
}
