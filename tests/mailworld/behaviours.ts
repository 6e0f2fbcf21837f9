/**
 * The scripted behaviours of the mail world's SMTP hosts and the replies they give. Both server
 * implementations (smtp-server based and raw) take their MAIL and RCPT decisions from here, so a
 * behaviour answers the same whichever implementation runs it. The hosts that answer like a large
 * provider or gateway take their replies from provider-replies.ts.
 */
import {
  isProviderBehaviour,
  PROVIDER_BEHAVIOURS,
  PROVIDER_REPLIES,
  type ProviderReplies,
} from './provider-replies.ts';

/** Options every behaviour understands. */
export interface CommonBehaviourOptions {
  /** Known local parts (case-insensitive); default {@link WORLD_MAILBOXES}. */
  mailboxes?: readonly string[];
  /** Name in the banner and EHLO reply; default `mx.mailworld.test`. */
  name?: string;
  /** A `452 4.5.3` past this many accepted RCPTs in one transaction; default no limit. */
  maxRecipients?: number;
}

/** One scripted behaviour, with its parameters. */
export type SmtpBehaviour = CommonBehaviourOptions &
  (
    | { behaviour: 'accept-known' }
    | { behaviour: 'catch-all' }
    | { behaviour: 'greylist'; retryAfterMs?: number }
    | { behaviour: 'mailbox-full'; fullMailboxes?: readonly string[] }
    | { behaviour: 'disabled'; disabledMailboxes?: readonly string[] }
    | { behaviour: 'blocklist' }
    | { behaviour: 'blocklist-banner' }
    | { behaviour: 'tarpit' }
    | { behaviour: 'drop-after-rcpt' }
    | { behaviour: 'drop-at-rcpt' }
    | { behaviour: 'slow-banner'; bannerDelayMs?: number }
    | { behaviour: 'starttls' }
    | { behaviour: 'reject-mail-from' }
    | { behaviour: 'too-many-recipients' }
    | { behaviour: 'reply-delay'; replyDelayMs?: number }
    | { behaviour: 'helo-only' }
    // Provider and gateway hosts (provider-replies.ts). Full and disabled mailboxes must be known
    // ones; by default BEHAVIOUR_DEFAULTS names them.
    | { behaviour: 'gmail'; fullMailboxes?: readonly string[]; disabledMailboxes?: readonly string[] }
    | { behaviour: 'm365-dbeb' }
    | { behaviour: 'm365-open' }
    | { behaviour: 'outlook-com' }
    | { behaviour: 'yahoo'; disabledMailboxes?: readonly string[] }
    | { behaviour: 'icloud' }
    | { behaviour: 'gateway-accept-all' }
    | { behaviour: 'gateway-block' }
    | { behaviour: 'policy-reject' }
  );

/** The name of a behaviour. */
export type BehaviourName = SmtpBehaviour['behaviour'];

/** Every behaviour, in the order the mail world gives them addresses (127.0.0.2, .3, ...). */
export const BEHAVIOURS: readonly BehaviourName[] = [
  'accept-known',
  'catch-all',
  'greylist',
  'mailbox-full',
  'disabled',
  'blocklist',
  'blocklist-banner',
  'tarpit',
  'drop-after-rcpt',
  'drop-at-rcpt',
  'slow-banner',
  'starttls',
  'reject-mail-from',
  'too-many-recipients',
  'reply-delay',
  'helo-only',
  ...PROVIDER_BEHAVIOURS,
];

/** Mailboxes every host knows unless told otherwise: a few names, `postmaster`, and user1..user100. */
export const WORLD_MAILBOXES: readonly string[] = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'postmaster',
  ...Array.from({ length: 100 }, (_, index) => `user${index + 1}`),
];

/** Parameter defaults, chosen to stay well inside the world's probe timeouts. */
export const BEHAVIOUR_DEFAULTS = {
  greylistRetryAfterMs: 1000,
  bannerDelayMs: 300,
  replyDelayMs: 20,
  tooManyRecipientsAfter: 3,
  /** The full mailbox of a provider host that has a full reply (gmail); the others are fine. */
  providerFullMailboxes: ['carol'],
  /** The disabled mailbox of a provider host that has a disabled reply (gmail, yahoo). */
  providerDisabledMailboxes: ['dave'],
} as const;

/**
 * An SMTP reply: the code and the text after it (enhanced status code included). A multi-line
 * reply's text has one `\n` between lines; only the raw responder sends it on several lines.
 */
export interface SmtpReply {
  code: number;
  text: string;
}

/** The replies of the world, quoted from the kind of server each imitates. */
export const REPLIES = {
  userUnknown: (address: string): SmtpReply => ({
    code: 550,
    text: `5.1.1 <${address}>: Recipient address rejected: User unknown`,
  }),
  greylisted: (seconds: number): SmtpReply => ({
    code: 451,
    text: `4.7.1 Greylisted, please retry in ${seconds} seconds`,
  }),
  mailboxFull: { code: 552, text: '5.2.2 Mailbox full' },
  disabled: { code: 550, text: '5.2.1 The email account that you tried to reach is disabled' },
  blocked: (clientIp: string): SmtpReply => ({
    code: 554,
    text: `5.7.1 Service unavailable; Client host [${clientIp}] blocked using zen.spamhaus.org`,
  }),
  senderRejected: { code: 550, text: '5.7.1 Sender rejected' },
  tooManyRecipients: { code: 452, text: '4.5.3 Error: too many recipients' },
  // A probe must never send DATA: refusing it keeps a buggy client from delivering anything.
  dataRefused: { code: 554, text: '5.7.1 DATA refused: the mail world only answers probes' },
  ehloUnsupported: { code: 502, text: '5.5.2 Error: command not recognized' },
  recipientOk: { code: 250, text: '2.1.5 Ok' },
} satisfies Record<string, SmtpReply | ((...args: never[]) => SmtpReply)>;

/** What a host knows about one RCPT when deciding on it. */
export interface RecipientContext {
  clientIp: string;
  sender: string;
  recipient: string;
  /** Recipients already accepted in this transaction. */
  accepted: number;
}

/** The MAIL and RCPT decisions of one host; it keeps its own state (greylist memory). */
export interface MailPolicy {
  /** The rejection of MAIL FROM, or null to accept it. */
  mailFrom(sender: string): SmtpReply | null;
  /** The reply to RCPT TO (a 2xx reply accepts it). */
  rcptTo(context: RecipientContext): SmtpReply;
  /** Forgets the greylist's first sightings. */
  forget(): void;
}

function localPartOf(address: string): string {
  const at = address.lastIndexOf('@');
  return (at === -1 ? address : address.slice(0, at)).toLowerCase();
}

function lowerSet(names: readonly string[]): Set<string> {
  return new Set(names.map((name) => name.toLowerCase()));
}

/** Builds the MAIL/RCPT policy of `behaviour`; `now` is injectable for greylist timing. */
export function createMailPolicy(behaviour: SmtpBehaviour, now: () => number = Date.now): MailPolicy {
  const known = lowerSet(behaviour.mailboxes ?? WORLD_MAILBOXES);
  const maxRecipients =
    behaviour.maxRecipients ??
    (behaviour.behaviour === 'too-many-recipients' ? BEHAVIOUR_DEFAULTS.tooManyRecipientsAfter : Infinity);
  const firstSeen = new Map<string, number>();
  // The full or disabled mailboxes; null means every known one.
  const listed =
    behaviour.behaviour === 'mailbox-full' && behaviour.fullMailboxes
      ? lowerSet(behaviour.fullMailboxes)
      : behaviour.behaviour === 'disabled' && behaviour.disabledMailboxes
        ? lowerSet(behaviour.disabledMailboxes)
        : null;
  const isListed = (local: string) => known.has(local) && (listed === null || listed.has(local));
  const mailboxReply = (recipient: string): SmtpReply =>
    known.has(localPartOf(recipient)) ? REPLIES.recipientOk : REPLIES.userUnknown(recipient);
  const providerReply = isProviderBehaviour(behaviour.behaviour)
    ? providerPolicy(behaviour, PROVIDER_REPLIES[behaviour.behaviour], known)
    : null;

  const special = (context: RecipientContext): SmtpReply | null => {
    if (providerReply) return providerReply(context);
    const local = localPartOf(context.recipient);
    switch (behaviour.behaviour) {
      case 'catch-all':
        return REPLIES.recipientOk;
      case 'blocklist':
        return REPLIES.blocked(context.clientIp);
      case 'greylist': {
        const retryAfterMs = behaviour.retryAfterMs ?? BEHAVIOUR_DEFAULTS.greylistRetryAfterMs;
        const key = `${context.clientIp}\u0000${context.sender.toLowerCase()}\u0000${context.recipient.toLowerCase()}`;
        const seen = firstSeen.get(key);
        const at = now();
        if (seen === undefined) firstSeen.set(key, at);
        const waited = seen === undefined ? 0 : at - seen;
        if (waited >= retryAfterMs) return null;
        return REPLIES.greylisted(Math.max(1, Math.ceil((retryAfterMs - waited) / 1000)));
      }
      case 'mailbox-full':
        return isListed(local) ? REPLIES.mailboxFull : null;
      case 'disabled':
        return isListed(local) ? REPLIES.disabled : null;
      default:
        return null;
    }
  };

  return {
    mailFrom: () => (behaviour.behaviour === 'reject-mail-from' ? REPLIES.senderRejected : null),
    rcptTo: (context) => {
      if (context.accepted >= maxRecipients) return REPLIES.tooManyRecipients;
      return special(context) ?? mailboxReply(context.recipient);
    },
    forget: () => firstSeen.clear(),
  };
}

/** The RCPT answers of a provider host: by its table, its known mailboxes and its listed ones. */
function providerPolicy(
  behaviour: SmtpBehaviour,
  replies: ProviderReplies,
  known: ReadonlySet<string>,
): (context: RecipientContext) => SmtpReply {
  if (replies.answers === 'every-recipient') {
    return ({ recipient, clientIp }) => replies.reply(recipient, clientIp);
  }
  // Only a provider with a full (disabled) reply has full (disabled) mailboxes.
  const full = lowerSet(
    ('fullMailboxes' in behaviour ? behaviour.fullMailboxes : undefined) ??
      BEHAVIOUR_DEFAULTS.providerFullMailboxes,
  );
  const disabled = lowerSet(
    ('disabledMailboxes' in behaviour ? behaviour.disabledMailboxes : undefined) ??
      BEHAVIOUR_DEFAULTS.providerDisabledMailboxes,
  );
  return ({ recipient }) => {
    const local = localPartOf(recipient);
    if (!known.has(local)) return replies.unknown(recipient);
    if (replies.full && full.has(local)) return replies.full(recipient);
    if (replies.disabled && disabled.has(local)) return replies.disabled(recipient);
    return replies.accepted ? replies.accepted(recipient) : REPLIES.recipientOk;
  };
}

/** The banner's text after `220 `: the provider's own where its table has one. */
export function bannerText(behaviour: SmtpBehaviour): string {
  const own = isProviderBehaviour(behaviour.behaviour)
    ? (PROVIDER_REPLIES[behaviour.behaviour] as ProviderReplies).banner
    : undefined;
  return own ?? `${behaviour.name ?? 'mx.mailworld.test'} ESMTP mail world`;
}

/** The client's IPv4 address without the IPv4-mapped IPv6 prefix. */
export function plainIp(address: string | undefined): string {
  const text = address ?? '';
  return text.startsWith('::ffff:') ? text.slice('::ffff:'.length) : text;
}
