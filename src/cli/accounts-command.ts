/**
 * `mailvet accounts create|list|update`: operators manage customers straight in the store. An
 * account's figures override its plan's (users: `users-command.ts`).
 */
import { effectiveLimits } from '../accounts/plans.ts';
import type { Account } from '../accounts/ports.ts';
import { loadConfig } from '../config.ts';
import { loadPlans } from '../container/store.ts';
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
    const account = await store.updateAccount(id, {
      ...(name !== undefined && { name }),
      ...(plan !== undefined && { plan }),
      ...figures,
    });
    if (account === null) throw new UsageError(`no account with id ${id}`);
    print(account, options.json, `updated account ${account.id} "${account.name}" on plan ${account.plan}`);
  });
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
