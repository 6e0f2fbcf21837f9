/**
 * Classifies SMTP replies: what an RCPT TO reply says about the mailbox, and what a reply before
 * RCPT (banner, EHLO/HELO, MAIL FROM, STARTTLS) means for the session. Pure and total: any input,
 * however broken, gives a verdict.
 *
 * Two rules above all. A reply that is not about the mailbox never makes it undeliverable: a
 * refusal because of who we are (IP, reputation, HELO name, sender, authentication), because of
 * the message (size, content), or because of the receiving system says nothing about whether the
 * mailbox exists. And the enhanced status code says what a reply is about: a code the IANA
 * registry (enhanced-status-codes.json) gives a meaning of its own decides, whatever the words
 * (`554 5.3.4 Recipient address rejected: Message too big` is about the message). Words decide
 * only where the code is generic (X.0.0, X.y.0), unregistered, or missing, and a few documented
 * provider quirks (data/smtp-reply-phrases.json) decide before any code.
 *
 * RCPT precedence, first match wins:
 *  1. not a valid reply (code outside 200-599, second digit > 5, oversized or control-laden
 *     text) → unknown protocol_error; 2xx → deliverable (251 forwards; 252 "cannot VRFY but will
 *     accept" is an acceptance like any other — the domain's catch-all probe is what tells an
 *     accept-everything server apart); 3xx → protocol_error.
 *  2. a documented provider quirk (Exchange Online's directory-based edge block under 5.4.1,
 *     Outlook.com's 5.5.0 "mailbox unavailable") → its verdict; Gmail's "receiving mail too
 *     quickly", under 4.2.1 or even 5.2.1, → greylisted.
 *  3. X.5.3 or "too many recipients" → too_many_recipients (452 and 552 alike).
 *  4. "TLS required", X.7.10, X.7.11, X.7.30 → unknown tls_failed.
 *  5. a registered code reading the mailbox full or disabled → mailbox_full, mailbox_disabled,
 *     whatever the class (a 4xx disabled account is as disabled as a 5xx one), unless try-later
 *     words say it is not the mailbox (Gmail's 4.2.1 rate limits); X.1.1 with full or disabled
 *     words → those (the reply is about the mailbox, the words say which state).
 *  6. words naming us (blocklists, reputation, "your IP", PTR, HELO, SPF, DKIM, DMARC, our sender
 *     address), or a registered code about us (X.1.7, X.1.8, X.7.8, X.7.20-X.7.29) → unknown
 *     blocked. Above a mailbox-missing code too: a reputation block dressed as 5.1.1 must not
 *     cost a customer a good address.
 *  7. any other registered code decides by its reading: mailbox missing → undeliverable; about
 *     the message → message_refused; the receiving system → system_error; a policy → policy;
 *     the protocol → protocol_error; congestion → greylisted. X.7.1 and X.1.2, which servers
 *     send for refusals of every kind ("stretched" in the registry file), yield to words that
 *     say plainly the mailbox is full, disabled or missing. Try-later words → greylisted. A 4xx
 *     is undeliverable only for a mailbox-missing code with plain missing words, else policy
 *     (X.7) or greylisted.
 *  Generic or no code, 4xx: full words → mailbox_full; try-later words → greylisted; disabled
 *     words → mailbox_disabled; plain missing words without policy words → undeliverable;
 *     X.7.0 or policy words → policy; else greylisted.
 *  Generic or no code, 5xx, by words first:
 *  8. full → mailbox_full; disabled → mailbox_disabled;
 *     the message (size, virus, content) → message_refused; "no such user / user unknown / does
 *     not exist" → undeliverable; the system (local error, loop, on hold) → system_error; policy
 *     words ("denied", "relay", "not allowed") → policy; try-later words → greylisted (a 5xx
 *     that says "try again later" does not say the mailbox is gone).
 *  9. then the subject of a generic code, over weaker words (its `otherwise` in the registry
 *     file): X.2.0 → policy (RFC 3463: the mailbox exists, something about it refused the mail),
 *     X.3.0/X.4.0 → system_error, X.5.0 → protocol_error, X.6.0 → message_refused, X.7.0 →
 *     policy; then weaker mailbox words ("mailbox unavailable", "recipient rejected") →
 *     undeliverable.
 * 10. then the basic code alone: 551 (user not local), 553 (mailbox name not allowed) →
 *     undeliverable; 552 (exceeded storage allocation) → mailbox_full; 500-504 and 555 →
 *     protocol_error; any other 5xx (a bare 550 or 554) → blocked: a refusal we cannot pin on
 *     the mailbox is a refusal to answer, not a dead mailbox.
 *
 * Session replies: 2xx → ok; 3xx → protocol_error. At STARTTLS every refusal is tls_failed (or
 * blocked when it names a block). Elsewhere "TLS required" → tls_failed; a sender-block phrase →
 * blocked. 4xx: try-later words → greylisted, X.7.x or policy words → blocked, else greylisted (a
 * 421 is "try later"). 5xx: at the banner → blocked (RFC 5321 §3.1 "554 No SMTP service": the
 * server refuses us, whatever it says); elsewhere X.7.x, X.1.x (our sender) or policy words →
 * blocked, 500-504, 555 or X.5.x (our command was not understood) → protocol_error, and any
 * other 5xx → blocked: before RCPT only our own name and sender address are in question.
 */
import type { SmtpUnknownReason } from '../../report.ts';
import { type CodeReading, isStretchedCode, readingOf, subjectOtherwise } from './enhanced-codes.ts';
import type { RcptVerdict, SessionVerdict, SmtpReply } from './reply.ts';
import { type ReplyReading, readReply } from './reply-signals.ts';

export { parseReplyLines } from './reply-lines.ts';

/** The session stages before RCPT whose replies classifySessionReply reads. */
export type SessionStage = 'banner' | 'helo' | 'mail_from' | 'starttls';

/** What an RCPT TO reply says about the mailbox. */
export function classifyRcptReply(reply: SmtpReply): RcptVerdict {
  const reading = readReply(reply);
  if (reading === null) return unknown('protocol_error');
  const { replyClass, enhanced, has } = reading;
  if (replyClass === 2) return { kind: 'deliverable' };
  if (replyClass === 3) return unknown('protocol_error');
  if (reading.quirk !== null) return reading.quirk;
  // Gmail sends "receiving mail too quickly" under 4.2.1 and even 5.2.1 ("disabled").
  if (has.recipientThrottled) return unknown('greylisted');
  const about = readingOf(enhanced);
  if (about === 'too_many_recipients' || has.tooManyRecipients) return { kind: 'too_many_recipients' };
  if (about === 'tls' || has.tlsRequired) return unknown('tls_failed');
  if (about === 'mailbox_full') return { kind: 'mailbox_full' };
  // Gmail sends 4.2.1 for its own rate limits too ("This is a temporary error"), Titan 5.2.1
  // for "Incoming temporarily suspended due to partner migration".
  if (about === 'mailbox_disabled' && !has.temporary) return { kind: 'mailbox_disabled' };
  // X.1.1 says the reply is about the mailbox; servers (Comcast, Orange, vpopmail, iCloud) send it
  // for full and deactivated mailboxes too, and their words say which.
  if (about === 'mailbox_missing' && has.mailboxFull) return { kind: 'mailbox_full' };
  if (about === 'mailbox_missing' && has.accountDisabled) return { kind: 'mailbox_disabled' };
  if (about === 'sender' || has.senderBlock) return unknown('blocked');
  if (about !== 'generic') return byCode(about, reading);
  return replyClass === 4 ? transientByWords(reading) : permanentByWords(reading);
}

/** The verdict a registered code gives, its words heard only where the code is stretched. */
function byCode(
  about: Exclude<CodeReading, 'generic'>,
  { replyClass, has, enhanced }: ReplyReading,
): RcptVerdict {
  const isStretched = isStretchedCode(enhanced);
  // X.7.1 "delivery not authorized" is many servers' code for every refusal, and some send it
  // for a missing or disabled mailbox in so many words (Yandex's "No such user!", Postfix access
  // maps' "User unknown"); Strato says "550 5.1.2 No such mailbox". Under such stretched codes
  // (marked in the registry file) a plain statement about the mailbox is believed.
  if (isStretched) {
    if (has.mailboxFull) return { kind: 'mailbox_full' };
    if (has.accountDisabled) return { kind: 'mailbox_disabled' };
    if (has.mailboxMissing && replyClass === 5) return { kind: 'undeliverable' };
  }
  if (has.temporary) return unknown('greylisted');
  if (replyClass === 4) {
    if (about === 'mailbox_missing' && has.mailboxMissing) return { kind: 'undeliverable' };
    return about === 'policy' ? unknown('policy') : unknown('greylisted');
  }
  return CODE_VERDICTS[about];
}

const CODE_VERDICTS: Readonly<Record<Exclude<CodeReading, 'generic'>, RcptVerdict>> = {
  mailbox_missing: { kind: 'undeliverable' },
  mailbox_disabled: { kind: 'mailbox_disabled' },
  mailbox_full: { kind: 'mailbox_full' },
  sender: unknown('blocked'),
  policy: unknown('policy'),
  message: unknown('message_refused'),
  system: unknown('system_error'),
  temporary: unknown('greylisted'),
  protocol: unknown('protocol_error'),
  too_many_recipients: { kind: 'too_many_recipients' },
  tls: unknown('tls_failed'),
};

function transientByWords({ enhanced, has }: ReplyReading): RcptVerdict {
  if (has.mailboxFull) return { kind: 'mailbox_full' };
  if (has.temporary) return unknown('greylisted');
  if (has.accountDisabled) return { kind: 'mailbox_disabled' };
  if (has.mailboxMissing && !has.policy) return { kind: 'undeliverable' };
  if (enhanced?.subject === 7 || has.policy) return unknown('policy');
  return unknown('greylisted');
}

function permanentByWords({ code, enhanced, has }: ReplyReading): RcptVerdict {
  if (has.mailboxFull) return { kind: 'mailbox_full' };
  if (has.accountDisabled) return { kind: 'mailbox_disabled' };
  if (has.messageRefused) return unknown('message_refused');
  if (has.mailboxMissing) return { kind: 'undeliverable' };
  if (has.systemTrouble) return unknown('system_error');
  if (has.policy) return unknown('policy');
  if (has.temporary) return unknown('greylisted');
  // A generic code still names its subject: "5.6.0 Recipient rejected" is about the message.
  const bySubject = subjectOtherwise(enhanced);
  if (bySubject !== null && bySubject !== 'generic') return CODE_VERDICTS[bySubject];
  if (has.mailboxRejected) return { kind: 'undeliverable' };
  if (code === 551 || code === 553) return { kind: 'undeliverable' };
  if (code === 552) return { kind: 'mailbox_full' };
  if (isCommandErrorCode(code)) return unknown('protocol_error');
  return unknown('blocked');
}

/** What a reply before RCPT means for the session: go on, or stop with a reason. */
export function classifySessionReply(stage: SessionStage, reply: SmtpReply): SessionVerdict {
  const reading = readReply(reply);
  if (reading === null) return unknown('protocol_error');
  const { code, replyClass, enhanced, has } = reading;
  if (replyClass === 2) return { kind: 'ok' };
  if (replyClass === 3) return unknown('protocol_error');
  if (stage === 'starttls') return unknown(has.senderBlock ? 'blocked' : 'tls_failed');
  if (has.tlsRequired) return unknown('tls_failed');
  if (has.senderBlock) return unknown('blocked');
  if (replyClass === 4) {
    if (has.temporary) return unknown('greylisted');
    return unknown(enhanced?.subject === 7 || has.policy ? 'blocked' : 'greylisted');
  }
  if (stage === 'banner') return unknown('blocked');
  if (enhanced?.subject === 7 || enhanced?.subject === 1 || has.policy) return unknown('blocked');
  if (isCommandErrorCode(code) || enhanced?.subject === 5) return unknown('protocol_error');
  return unknown('blocked');
}

function unknown(reason: SmtpUnknownReason): { kind: 'unknown'; reason: SmtpUnknownReason } {
  return { kind: 'unknown', reason };
}

/** RFC 5321 §4.2.3 syntax and sequence replies, and 555 (MAIL/RCPT parameters not recognized). */
function isCommandErrorCode(code: number): boolean {
  return (code >= 500 && code <= 504) || code === 555;
}
