/**
 * Mail to a user's own address, through the operator's relay: the link that confirms the address
 * of a sign-up, and the link that resets a forgotten password. A sign-up made while a relay is set
 * verifies nothing until its address is confirmed, so an account costs a working mailbox, not just
 * a request. Links point at the dashboard (MAILVET_PUBLIC_URL), whose page posts the token back.
 */
import { hashPassword } from './passwords.ts';
import type { Mailer, MailMessage, User, UserStore } from './ports.ts';
import { issueUserToken, redeemUserToken } from './user-tokens.ts';
import { normalizeUserEmail } from './users.ts';

export interface AccountMailDeps {
  users: UserStore;
  mailer: Mailer;
  /** MAILVET_PUBLIC_URL's origin: the dashboard the links open. */
  publicOrigin: string;
  now?: () => Date;
}

/** The dashboard pages the links open. */
export const CONFIRM_PATH = '/confirm';
export const RESET_PATH = '/reset-password';

/** Whether the user may not verify yet: a relay is set and their address is not confirmed. */
export function awaitsConfirmation(user: Pick<User, 'emailConfirmedAt'>, relaySet: boolean): boolean {
  return relaySet && user.emailConfirmedAt === null;
}

export class AccountMail {
  readonly #deps: AccountMailDeps;
  readonly #now: () => Date;

  constructor(deps: AccountMailDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** Sends the user a link that confirms their address (a new one: an earlier link stops working). */
  async sendConfirmation(user: User): Promise<void> {
    const token = await issueUserToken(this.#deps.users, user.id, 'confirm_email', this.#now());
    await this.#deps.mailer.send(confirmationMessage(user.email, this.#link(CONFIRM_PATH, token)));
  }

  /** Confirms the address of the link's user, and returns them; null when the link is unknown, used or expired. */
  async confirm(token: string): Promise<User | null> {
    const now = this.#now();
    const userId = await redeemUserToken(this.#deps.users, token, 'confirm_email', now);
    if (userId === null) return null;
    await this.#deps.users.confirmEmail(userId, now.toISOString());
    return this.#deps.users.findUserById(userId);
  }

  /**
   * Sends a reset link to the address when a user has it, and nothing otherwise. Callers answer
   * before this ends, so that the answer is the same, in the same time, either way.
   */
  async requestReset(email: string): Promise<void> {
    const user = await this.#deps.users.findUserByEmail(normalizeUserEmail(email));
    if (user === null) return;
    const token = await issueUserToken(this.#deps.users, user.id, 'reset_password', this.#now());
    await this.#deps.mailer.send(resetMessage(user.email, this.#link(RESET_PATH, token)));
  }

  /**
   * Sets the link's user's password and ends every session of theirs; the link also confirms the
   * address it was sent to. Returns the user; null when the link is unknown, used or expired.
   */
  async resetPassword(token: string, newPassword: string): Promise<User | null> {
    const now = this.#now();
    const userId = await redeemUserToken(this.#deps.users, token, 'reset_password', now);
    if (userId === null) return null;
    await this.#deps.users.changePassword(userId, await hashPassword(newPassword), null);
    await this.#deps.users.confirmEmail(userId, now.toISOString());
    return this.#deps.users.findUserById(userId);
  }

  #link(path: string, token: string): string {
    const url = new URL(path, this.#deps.publicOrigin);
    url.searchParams.set('token', token);
    return url.toString();
  }
}

function confirmationMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Confirm your email address for Mailvet',
    text: [
      'Hello,',
      '',
      `A Mailvet account was created with this address (${to}). Follow this link to confirm`,
      'the address; the account can verify addresses from then on:',
      '',
      link,
      '',
      'The link works once, for 48 hours; the dashboard can send a new one.',
      'If you did not sign up, ignore this message: the account stays unconfirmed and verifies nothing.',
      '',
    ].join('\n'),
  };
}

function resetMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your Mailvet password',
    text: [
      'Hello,',
      '',
      `Someone asked to reset the password of the Mailvet account of ${to}.`,
      'Follow this link to choose a new one:',
      '',
      link,
      '',
      'The link works once, for an hour. Setting a new password signs out every browser signed in',
      'to the account.',
      'If you did not ask, ignore this message: your password stays as it is.',
      '',
    ].join('\n'),
  };
}
