/**
 * `mailvet users create|list|update`: the dashboard's users, straight in the store. A user signs in
 * as the owner of one account; an operator (marked here, never by sign-up) also sees the probe
 * host's health and how to change plans. Marking is the CLI's alone: whoever runs it already holds
 * the server's database.
 */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../accounts/passwords.ts';
import type { User } from '../accounts/ports.ts';
import { emailProblem, normalizeUserEmail, passwordProblem } from '../accounts/users.ts';
import { recordOperatorChange } from './operator-audit.ts';
import { withStore } from './store-command.ts';
import { UsageError } from './usage-error.ts';

/**
 * `mailvet users create --email E --account ID`: the password is read from standard input when it
 * is not a terminal, else a random one is made and printed once.
 */
export async function runUsersCreate(options: {
  email: string;
  account: string;
  operator?: boolean;
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
      operator: options.operator === true,
    });
    if (user === null) throw new UsageError(`${options.email} already has a user`);
    await recordOperatorChange(store, user.accountId, {
      action: 'user.created',
      targetId: user.id,
      details: { email: user.email, operator: user.operator },
    });
    const shown = given === undefined || given === '' ? password : undefined;
    if (options.json) {
      const body = {
        id: user.id,
        email: user.email,
        account_id: user.accountId,
        operator: user.operator,
        ...(shown && { password: shown }),
      };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      const role = user.operator ? ' (an operator)' : '';
      process.stdout.write(`created user ${user.id} ${user.email} in account ${user.accountId}${role}\n`);
      if (shown !== undefined)
        process.stdout.write(`one-time password (shown once; change it in the dashboard): ${shown}\n`);
    }
  });
}

/** `mailvet users list [--account ID] [--json]`: every user, oldest first, with the operators marked. */
export async function runUsersList(options: { account?: string; json?: boolean }): Promise<void> {
  await withStore(async (store) => {
    const users = await store.users.listUsers(options.account);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(users.map(publicUser), null, 2)}\n`);
      return;
    }
    if (users.length === 0) process.stdout.write('no users\n');
    for (const user of users) {
      const role = user.operator ? '  operator' : '';
      process.stdout.write(`${user.id}  ${user.email}  account ${user.accountId}${role}\n`);
    }
  });
}

/** `mailvet users update ID --operator|--no-operator [--json]`. */
export async function runUsersUpdate(
  id: string,
  options: { operator?: boolean; json?: boolean },
): Promise<void> {
  if (options.operator === undefined) throw new UsageError('say --operator or --no-operator');
  const operator = options.operator;
  await withStore(async (store) => {
    const before = await store.users.findUserById(id);
    const user = before === null ? null : await store.users.setOperator(id, operator);
    if (before === null || user === null)
      throw new UsageError(`no user with id ${id} (see mailvet users list)`);
    if (before.operator !== user.operator) {
      await recordOperatorChange(store, user.accountId, {
        action: 'user.role_changed',
        targetId: user.id,
        details: { before: { operator: before.operator }, after: { operator: user.operator } },
      });
    }
    process.stdout.write(
      options.json
        ? `${JSON.stringify(publicUser(user), null, 2)}\n`
        : `${user.email} is ${user.operator ? 'now an operator' : 'no longer an operator'}\n`,
    );
  });
}

function publicUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    account_id: user.accountId,
    operator: user.operator,
    created_at: user.createdAt,
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
