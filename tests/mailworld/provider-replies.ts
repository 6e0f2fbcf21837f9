/**
 * How the large providers and security gateways answer RCPT, for the mail world's provider hosts.
 * Each refusal is a real reply text quoted from the reply corpus (tests/fixtures/smtp-reply-corpus/
 * and tests/fixtures/smtp-replies.json), with only its address or IP placeholder replaced by the
 * recipient or the client's address; the comment above each names the file, the provider entry
 * and where the corpus has it from. A host without an acceptance of its own here accepts in the
 * world's words (`250 2.1.5 Ok`): any 2xx accepts the recipient, whatever it says.
 */
import type { SmtpReply } from './behaviours.ts';

/**
 * A host that answers each recipient by its own mailbox: known ones accepted, listed ones full or
 * disabled (when the provider has a reply for that), the rest refused as unknown.
 */
export interface MailboxProviderReplies {
  answers: 'by-mailbox';
  /** The banner's text after `220 `, when the provider's own is documented. */
  banner?: string;
  accepted?(recipient: string): SmtpReply;
  unknown(recipient: string): SmtpReply;
  full?(recipient: string): SmtpReply;
  disabled?(recipient: string): SmtpReply;
}

/** A host that gives every recipient the same answer, known or not (a gateway, an open tenant). */
export interface UniformProviderReplies {
  answers: 'every-recipient';
  banner?: string;
  reply(recipient: string, clientIp: string): SmtpReply;
}

export type ProviderReplies = MailboxProviderReplies | UniformProviderReplies;

/**
 * A reply as a server writes it, one line per `\n` (`550-5.1.1 ...` then `550 5.1.1 ...`), as an
 * SmtpReply: the code, and each line's text after `550-`/`550 ` joined with `\n`.
 */
export function wireReply(wire: string): SmtpReply {
  const lines = wire.split('\n');
  const code = Number(wire.slice(0, 3));
  for (const [i, line] of lines.entries()) {
    const separator = i === lines.length - 1 ? ' ' : '-';
    if (!/^[2-5]\d\d$/.test(line.slice(0, 3)) || Number(line.slice(0, 3)) !== code || line[3] !== separator) {
      throw new Error(`not a well-formed reply: ${JSON.stringify(wire)}`);
    }
  }
  return { code, text: lines.map((line) => line.slice(4)).join('\n') };
}

/** The replies of each provider host, keyed by behaviour name (the mail world's order). */
export const PROVIDER_REPLIES = {
  gmail: {
    answers: 'by-mailbox',
    // smtp-replies.json, Gmail banner ("Gmail's usual banner").
    banner: 'mx.google.com ESMTP a1si1234567qkb.123 - gsmtp',
    // smtp-replies.json, Gmail "250 2.1.5 OK ... - gsmtp" ("Gmail's usual RCPT acceptance").
    accepted: () => wireReply('250 2.1.5 OK a1si1234567qkb.123 - gsmtp'),
    // google-microsoft.json, Gmail / Google Workspace, 550-5.1.1 NoSuchUser (four lines; the
    // last has Gmail's two spaces before the link).
    unknown: () =>
      wireReply(
        [
          '550-5.1.1 The email account that you tried to reach does not exist. Please try',
          "550-5.1.1 double-checking the recipient's email address for typos or",
          '550-5.1.1 unnecessary spaces. Learn more at',
          '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser y3si675602plr.1 - gsmtp',
        ].join('\n'),
      ),
    // google-microsoft.json, Gmail / Google Workspace, 452-4.2.2 OverQuotaTemp.
    full: () =>
      wireReply(
        [
          '452-4.2.2 The email account that you tried to reach is over quota. Please direct',
          '452-4.2.2 the recipient to',
          '452 4.2.2 https://support.google.com/mail/?p=OverQuotaTemp d34si16258651pld.82 - gsmtp',
        ].join('\n'),
      ),
    // google-microsoft.json, Gmail / Google Workspace, 550-5.2.1 DisabledUser.
    disabled: () =>
      wireReply(
        [
          '550-5.2.1 The email account that you tried to reach is disabled. Learn more at',
          '550 5.2.1  https://support.google.com/mail/?p=DisabledUser 000000000000eee.000 - gsmtp',
        ].join('\n'),
      ),
  },
  'm365-dbeb': {
    answers: 'by-mailbox',
    // Exchange Online's usual RCPT acceptance (its wording is not in the corpus).
    accepted: () => wireReply('250 2.1.5 Recipient OK'),
    // google-microsoft.json, Microsoft 365 / Exchange Online, directory-based edge blocking
    // ("Seen 'in the wild'"; Microsoft documents 5.4.1 "Access denied" as "the recipient's
    // address doesn't exist"); also smtp-replies.json with another server name.
    unknown: () =>
      wireReply(
        '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [PR2FRA01FT009.eop-fra01.prod.protection.outlook.com]',
      ),
  },
  'm365-open': {
    // Without directory-based edge blocking Exchange Online takes every recipient at RCPT and
    // bounces unknown ones after DATA, which a probe never sends.
    answers: 'every-recipient',
    reply: () => wireReply('250 2.1.5 Recipient OK'),
  },
  'outlook-com': {
    answers: 'by-mailbox',
    // google-microsoft.json, Outlook.com / Hotmail, 550 5.5.0 mailbox unavailable.
    unknown: () => wireReply('550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302)'),
  },
  yahoo: {
    answers: 'by-mailbox',
    // providers.json, Yahoo, "This user doesn't have a yahoo.com account" (the address filled).
    unknown: (recipient) =>
      wireReply(
        `554 delivery error: dd This user doesn't have a yahoo.com account (${recipient}) [-5] - mta123.mail.mud.yahoo.com`,
      ),
    // providers.json, Yahoo, "This mailbox is disabled (554.30)" (the address filled).
    disabled: (recipient) =>
      wireReply(
        `554 delivery error: dd Sorry, your message to ${recipient} cannot be delivered. This mailbox is disabled (554.30). - mx.example.com`,
      ),
  },
  icloud: {
    answers: 'by-mailbox',
    // providers.json, Apple iCloud, "user does not exist" (smtp.codes/icloud; the address filled).
    unknown: (recipient) => wireReply(`550 5.1.1 <${recipient}>: user does not exist`),
  },
  'gateway-accept-all': {
    // A filtering gateway in front of an organisation's own servers takes every recipient.
    answers: 'every-recipient',
    // gateways.json, Barricade MX (SnertSoft smtpf filtering proxy), recipient accepted #290.
    reply: (recipient) => wireReply(`250 2.1.5 recipient <${recipient}> accepted #290`),
  },
  'gateway-block': {
    // Proofpoint refusing the prober's IP for its reputation, whoever the recipient.
    answers: 'every-recipient',
    // gateways.json, Proofpoint, "blocked using prs.proofpoint.com" ("Your IP has been blocked
    // by Proofpoint Dynamic Reputation"; the client's address filled).
    reply: (_recipient, clientIp) =>
      wireReply(`550 5.7.1 Service unavailable; client [${clientIp}] blocked using prs.proofpoint.com`),
  },
  'policy-reject': {
    // A server refusing unknown recipients with a reply about the message, never the mailbox:
    // 5.3.4 is "message too big for system", whatever the 552 before it might suggest.
    answers: 'by-mailbox',
    // gateways.json, "recipient server, quoted by Email Security.cloud" (knowledge.broadcom.com).
    unknown: () => wireReply('552 5.3.4 Message size exceeds fixed maximum message size'),
  },
} as const satisfies Record<string, ProviderReplies>;

/** The name of a provider behaviour. */
export type ProviderBehaviourName = keyof typeof PROVIDER_REPLIES;

/** The provider behaviours, in the order they follow the mail world's other behaviours. */
export const PROVIDER_BEHAVIOURS = Object.keys(PROVIDER_REPLIES) as ProviderBehaviourName[];

/** Whether `name` is a provider behaviour. */
export function isProviderBehaviour(name: string): name is ProviderBehaviourName {
  return Object.hasOwn(PROVIDER_REPLIES, name);
}
