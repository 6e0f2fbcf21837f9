/**
 * `mailvet accounts create|list|update` and `mailvet users create`: operators manage
 * customers straight in the store. An account's figures override its plan's; a user signs in to
 * the dashboard as the owner of one account.
 */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../accounts/passwords.ts';
import { effectiveLimits } from '../accounts/plans.ts';
import type { Account } from '../accounts/ports.ts';
import { emailProblem, normalizeUserEmail, passwordProblem } from '../accounts/users.ts';
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

/**
 * `mailvet users create --email E --account ID`: the password is read from standard input when it
 * is not a terminal, else a random one is made and printed once.
 */
export async function runUsersCreate(options: {
  email: string;
  account: string;
  json?: boolean;
}): Promise<void> {
  const problem = emailProblem(options.email);
  if (problem !== null) throw new UsageError(`--email: ${problem.message}`);
  const given = process.stdin.isTTY ? undefined : (await readStdin()).replace(/\r?\n$/, '');
  const password = given === undefined || given === '' ? randomBytes(15).toString('base64url') : given;
  const weak = passwordProblem(password);
  if (weak !== null) throw new UsageError(`the password from standard input: ${weak.message}`);
  await withStore(async (store) => {
    if ((await store.findAccount(options.account)) === null) {
      throw new UsageError(`no account with id ${options.account}`);
    }
    const user = await store.users.createUser({
      accountId: options.account,
      email: normalizeUserEmail(options.email),
      passwordHash: await hashPassword(password),
    });
    if (user === null) throw new UsageError(`${options.email} already has a user`);
    const shown = given === undefined || given === '' ? password : undefined;
    if (options.json) {
      const body = {
        id: user.id,
        email: user.email,
        account_id: user.accountId,
        ...(shown && { password: shown }),
      };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      process.stdout.write(`created user ${user.id} ${user.email} in account ${user.accountId}\n`);
      if (shown !== undefined)
        process.stdout.write(`one-time password (shown once; change it in the dashboard): ${shown}\n`);
    }
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

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 4096) throw new UsageError('the password from standard input is too long');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
