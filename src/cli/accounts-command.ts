/**
 * `mailvet accounts create|list|update`: operators manage customers straight in the store. An
 * account's figures override its plan's (users: `users-command.ts`).
 */
import { effectiveLimits } from '../accounts/plans.ts';
import type { Account } from '../accounts/ports.ts';
import { changedFields } from '../audit/audit-trail.ts';
import { accountLimits, accountPlan, accountSettings } from '../audit/described.ts';
import { loadConfig } from '../config.ts';
import { loadPlans } from '../container/store.ts';
import { recordOperatorChange } from './operator-audit.ts';
import { capFlags, knownPlan, optionalName, withStore } from './store-command.ts';
import { UsageError } from './usage-error.ts';

interface FigureOptions {
  plan?: string;
  monthlyQuota?: string;
  bulkQuota?: string;
  rateLimit?: string;
  json?: boolean;
}

/** `mailvet accounts create --name N [--plan P] [--monthly-quota N] [--bulk-quota N] [--rate-limit N]`. */
export async function runAccountsCreate(
  options: FigureOptions & { name: string; init?: boolean },
): Promise<void> {
  const plans = await loadPlans(loadConfig());
  const plan = knownPlan(plans, options.plan);
  const figures = capFlags(options);
  const name = optionalName(options.name)!;
  await withStore(
    async (store, where) => {
      const account = await store.createAccount({ name, plan, ...figures });
      await recordOperatorChange(store, account.id, {
        action: 'account.created',
        targetId: account.id,
        details: { ...accountSettings(account), ...accountPlan(account), ...accountLimits(account) },
      });
      print(
        account,
        options.json,
        `created account ${account.id} "${account.name}" on plan ${account.plan} in ${where}`,
      );
    },
    { init: options.init === true },
  );
}

/** `mailvet accounts list`. */
export async function runAccountsList(options: { json?: boolean }): Promise<void> {
  const plans = await loadPlans(loadConfig());
  await withStore(async (store) => {
    const accounts = await store.listAccounts();
    if (options.json) {
      process.stdout.write(`${JSON.stringify(accounts.map(publicAccount), null, 2)}\n`);
      return;
    }
    if (accounts.length === 0) {
      process.stdout.write('no accounts yet: mailvet accounts create --name NAME\n');
      return;
    }
    for (const account of accounts) {
      const limits = effectiveLimits(plans, account.plan, account);
      const line = [
        account.id,
        account.name,
        `plan ${account.plan}`,
        `${limits.monthlyVerifications}/month`,
        `${limits.monthlyBulkRequests} bulk/month`,
        `${limits.ratePerSecond}/s`,
      ].join('  ');
      process.stdout.write(`${line}\n`);
    }
  });
}

/** `mailvet accounts update ID [--name N] [--plan P] [--monthly-quota N|none] ...`. */
export async function runAccountsUpdate(
  id: string,
  options: FigureOptions & { name?: string },
): Promise<void> {
  const plans = await loadPlans(loadConfig());
  const plan = options.plan === undefined ? undefined : knownPlan(plans, options.plan);
  const name = optionalName(options.name);
  const figures = capFlags(options, true);
  await withStore(async (store) => {
    const before = await store.findAccount(id);
    const account =
      before === null
        ? null
        : await store.updateAccount(id, {
            ...(name !== undefined && { name }),
            ...(plan !== undefined && { plan }),
            ...figures,
          });
    if (before === null || account === null) throw new UsageError(`no account with id ${id}`);
    await recordAccountChanges(store, before, account);
    print(account, options.json, `updated account ${account.id} "${account.name}" on plan ${account.plan}`);
  });
}

/** One entry per kind of change: the plan, the figures, the account's own settings. */
async function recordAccountChanges(
  store: Parameters<typeof recordOperatorChange>[0],
  before: Account,
  after: Account,
): Promise<void> {
  const kinds = [
    ['account.plan_changed', accountPlan],
    ['account.limits_changed', accountLimits],
    ['account.settings_changed', accountSettings],
  ] as const;
  for (const [action, describe] of kinds) {
    const changed = changedFields<Record<string, string | number | null>>(describe(before), describe(after));
    if (changed !== null)
      await recordOperatorChange(store, after.id, { action, targetId: after.id, details: changed });
  }
}

function print(account: Account, json: boolean | undefined, line: string): void {
  process.stdout.write(json ? `${JSON.stringify(publicAccount(account), null, 2)}\n` : `${line}\n`);
}

function publicAccount(account: Account) {
  return {
    id: account.id,
    name: account.name,
    plan: account.plan,
    monthly_quota: account.monthlyQuota,
    bulk_quota: account.bulkQuota,
    rate_limit: account.rateLimit,
    created_at: account.createdAt,
  };
}
