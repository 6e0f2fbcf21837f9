/**
 * Account mail: the operator's relay (MAILVET_MAIL_URL) behind the accounts' Mailer port, and the
 * start-up warning for a public server that lets anyone sign up without one.
 */
import { AccountMail } from '../accounts/account-mail.ts';
import type { Mailer, UserStore } from '../accounts/ports.ts';
import { SmtpMailer } from '../adapters/mail/smtp-mailer.ts';
import { type Config, isLoopbackHost } from '../config.ts';

/** The relay's Mailer; undefined when MAILVET_MAIL_URL is unset. */
export function createMailer(
  config: Pick<Config, 'MAILVET_MAIL_URL' | 'MAILVET_MAIL_FROM'>,
): SmtpMailer | undefined {
  const relay = config.MAILVET_MAIL_URL;
  // Config parsing requires a From with a relay.
  if (relay === undefined || config.MAILVET_MAIL_FROM === undefined) return undefined;
  return new SmtpMailer(relay, config.MAILVET_MAIL_FROM);
}

/** Confirmation and reset links through `mailer`; undefined without one. */
export function createAccountMail(
  mailer: Mailer | undefined,
  users: UserStore,
  publicOrigin: string,
  now?: () => Date,
): AccountMail | undefined {
  return mailer === undefined
    ? undefined
    : new AccountMail({ users, mailer, publicOrigin, ...(now && { now }) });
}

/**
 * The warning for a server others reach (MAILVET_PUBLIC_URL not on loopback) where anyone may sign
 * up and no relay confirms their address: each sign-up is a month of free verifications for the
 * asking. Null when that is not the case.
 */
export function openSignupWarning(
  config: Pick<Config, 'MAILVET_PUBLIC_URL' | 'MAILVET_SIGNUP' | 'MAILVET_MAIL_URL'>,
): string | null {
  if (config.MAILVET_SIGNUP !== 'open' || config.MAILVET_MAIL_URL !== undefined) return null;
  if (config.MAILVET_PUBLIC_URL === undefined || isLoopbackHost(new URL(config.MAILVET_PUBLIC_URL).hostname))
    return null;
  return (
    'sign-up is open to anyone and no mail relay confirms their address: every new account verifies at ' +
    'once, so repeated sign-ups mint free quota. Set MAILVET_MAIL_URL and MAILVET_MAIL_FROM (sign-ups ' +
    'then confirm their address before verifying) or MAILVET_SIGNUP=closed'
  );
}
