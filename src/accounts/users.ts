/**
 * Dashboard users: sign-up (an account on the default plan and its owner), sign-in and password
 * changes. Addresses are compared lower-cased; one message covers "no such user" and "wrong
 * password", and both take the time of a password check.
 */
import { checkAddressSyntax } from '../verification/checks/syntax.ts';
import {
  checkDecoy,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordMatches,
} from './passwords.ts';
import type { Account, AccountStore, User, UserStore } from './ports.ts';

/** The longest address a user may have (RFC 5321's path limit). */
export const MAX_USER_EMAIL_LENGTH = 254;

export interface UserDeps {
  accounts: Pick<AccountStore, 'createAccount' | 'deleteAccount'>;
  users: UserStore;
}

/** A field a person must correct, with the words to show them. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The form an address is stored and looked up in. */
export function normalizeUserEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What is wrong with a sign-up's address; null when it is fine. */
export function emailProblem(email: string): FieldProblem | null {
  const normalized = normalizeUserEmail(email);
  if (
    normalized.length === 0 ||
    normalized.length > MAX_USER_EMAIL_LENGTH ||
    !checkAddressSyntax(normalized).valid
  ) {
    return { field: 'email', message: 'Enter an email address such as jane@example.com' };
  }
  return null;
}

/** What is wrong with a new password; null when it is fine. */
export function passwordProblem(password: string, field = 'password'): FieldProblem | null {
  if (password.length < MIN_PASSWORD_LENGTH) {
    return { field, message: `Use at least ${MIN_PASSWORD_LENGTH} characters` };
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    return { field, message: `Use at most ${MAX_PASSWORD_LENGTH} characters` };
  }
  return null;
}

export type SignUpOutcome = { kind: 'ok'; user: User; account: Account } | { kind: 'taken' };

/**
 * Makes an account on `plan` and its owner; `taken` when the address already has a user. With
 * `unconfirmed`, the owner's address waits for its confirmation link (a mail relay is set).
 */
export async function signUp(
  deps: UserDeps,
  input: { email: string; password: string; accountName?: string; plan: string; unconfirmed?: boolean },
): Promise<SignUpOutcome> {
  const email = normalizeUserEmail(input.email);
  if ((await deps.users.findUserByEmail(email)) !== null) return { kind: 'taken' };
  const passwordHash = await hashPassword(input.password);
  const account = await deps.accounts.createAccount({
    name: input.accountName?.trim() || email,
    plan: input.plan,
  });
  const user = await deps.users.createUser({
    accountId: account.id,
    email,
    passwordHash,
    ...(input.unconfirmed === true && { emailConfirmedAt: null }),
  });
  if (user === null) {
    // Another sign-up of the same address won the race: leave no empty account behind.
    await deps.accounts.deleteAccount(account.id);
    return { kind: 'taken' };
  }
  return { kind: 'ok', user, account };
}

/** The user with this address and password; null otherwise (in the same time either way). */
export async function authenticate(users: UserStore, email: string, password: string): Promise<User | null> {
  if (password.length > MAX_PASSWORD_LENGTH) return null;
  const user = await users.findUserByEmail(normalizeUserEmail(email));
  if (user === null) return checkDecoy(password).then(() => null);
  return (await passwordMatches(user.passwordHash, password)) ? user : null;
}

/** Sets a new password when the current one is right; every other session of the user ends. */
export async function changePassword(
  users: UserStore,
  user: User,
  input: { currentPassword: string; newPassword: string; keepSessionId: string | null },
): Promise<'ok' | 'wrong_password'> {
  if (!(await passwordMatches(user.passwordHash, input.currentPassword))) return 'wrong_password';
  await users.changePassword(user.id, await hashPassword(input.newPassword), input.keepSessionId);
  return 'ok';
}
