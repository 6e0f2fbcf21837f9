/**
 * Classifies SMTP replies: what an RCPT TO reply says about the mailbox, and what a reply before
 * RCPT (banner, EHLO/HELO, MAIL FROM, STARTTLS) means for the session. Pure and total: any input,
 * however broken, gives a verdict.
 *
 * The one rule above all: a rejection because of who we are — our IP, network,
 * reputation, HELO name, sender domain, sending rate — says nothing about the mailbox, so it is
 * `unknown`/`blocked`, never `undeliverable`. Servers do not label this reliably: some put a
 * reputation block behind a 5.1.x-looking reply, and Yandex answers a missing user with
 * `550 5.7.1 No such user!`. So words that name a block win over every code, and words that
 * plainly say the mailbox does not exist win over the 5.7.x policy class.
 *
 * RCPT precedence, first match wins:
 *  1. not a valid reply (code outside 200-599, second digit > 5, oversized or control-laden
 *     text) → unknown protocol_error; 2xx → deliverable (251 forwards; 252 "cannot VRFY but will
 *     accept" is an acceptance like any other — the domain's catch-all probe is what tells an
 *     accept-everything server apart); 3xx → protocol_error.
 *  2. X.5.3 or "too many recipients" → too_many_recipients (452 and 552 alike).
 *  3. a documented provider quirk (data file) → its verdict.
 *  4. "TLS required" → unknown tls_failed.
 *  5. a sender-block phrase (spamhaus, blocklist, reputation, "your IP", PTR, HELO, SPF...) or
 *     an X.1.7/X.1.8 code (our sender address) → unknown blocked.
 *  4xx from here: X.2.2 or "over quota" → mailbox_full; "receiving mail too quickly" or
 *     greylist/try-later words → greylisted; X.7.x or policy words → blocked; else greylisted.
 *     A 4xx never says a mailbox is missing: list jobs re-check it later.
 *  5xx from here:
 *  6. "receiving mail too quickly" → unknown greylisted (Gmail sends it with 550 5.2.1).
 *  7. X.7.x → undeliverable when the text says the mailbox does not exist, else blocked.
 *  8. "disabled / inactive / suspended" → mailbox_disabled.
 *  9. X.2.2 or "over quota / mailbox full" → mailbox_full.
 * 10. "no such user / user unknown / does not exist" → undeliverable.
 * 11. X.2.1 → mailbox_disabled.
 * 12. X.1.0, X.1.1, X.1.2, X.1.3, X.1.6, X.1.10 (bad destination address) → undeliverable.
 * 13. policy words ("denied", "relay", "policy", "blocked") → blocked.
 * 14. weaker mailbox words ("mailbox unavailable", "recipient rejected") → undeliverable.
 * 15. greylist/try-later words → greylisted.
 * 16. by code alone: 551 (user not local), 553 (mailbox name not allowed) → undeliverable;
 *     552 (exceeded storage allocation) → mailbox_full; 500-504 and 555 → protocol_error; any
 *     other 5xx (a bare 550 or 554) → blocked: a refusal we cannot pin on the mailbox is a refusal
 *     to answer, not a dead mailbox.
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
import type { RcptVerdict, SessionVerdict, SmtpReply } from './reply.ts';
import { type EnhancedCode, type ReplyReading, readReply } from './reply-signals.ts';

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
  if (isCode(enhanced, 5, 3) || has.tooManyRecipients) return { kind: 'too_many_recipients' };
  if (reading.quirk !== null) return reading.quirk;
  if (has.tlsRequired) return unknown('tls_failed');
  if (has.senderBlock || isSenderAddressCode(enhanced)) return unknown('blocked');
  return replyClass === 4 ? classifyTransientRcpt(reading) : classifyPermanentRcpt(reading);
}

function classifyTransientRcpt({ enhanced, has }: ReplyReading): RcptVerdict {
  if (isCode(enhanced, 2, 2) || has.mailboxFull) return { kind: 'mailbox_full' };
  if (has.recipientThrottled || has.temporary) return unknown('greylisted');
  if (enhanced?.subject === 7 || has.policy) return unknown('blocked');
  return unknown('greylisted');
}

function classifyPermanentRcpt({ code, enhanced, has }: ReplyReading): RcptVerdict {
  if (has.recipientThrottled) return unknown('greylisted');
  if (enhanced?.subject === 7) return has.mailboxMissing ? { kind: 'undeliverable' } : unknown('blocked');
  if (has.accountDisabled) return { kind: 'mailbox_disabled' };
  if (isCode(enhanced, 2, 2) || has.mailboxFull) return { kind: 'mailbox_full' };
  if (has.mailboxMissing) return { kind: 'undeliverable' };
  if (isCode(enhanced, 2, 1)) return { kind: 'mailbox_disabled' };
  if (isBadDestinationCode(enhanced)) return { kind: 'undeliverable' };
  if (has.policy) return unknown('blocked');
  if (has.mailboxRejected) return { kind: 'undeliverable' };
  if (has.temporary) return unknown('greylisted');
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

function isCode(enhanced: EnhancedCode | null, subject: number, detail: number): boolean {
  return enhanced !== null && enhanced.subject === subject && enhanced.detail === detail;
}

/** RFC 3463 X.1.7 bad sender mailbox syntax, X.1.8 bad sender system address: about us. */
function isSenderAddressCode(enhanced: EnhancedCode | null): boolean {
  return enhanced?.subject === 1 && (enhanced.detail === 7 || enhanced.detail === 8);
}

/**
 * RFC 3463 X.1.0 other address status, X.1.1 bad destination mailbox, X.1.2 bad destination
 * system, X.1.3 bad destination syntax, X.1.6 mailbox moved; X.1.10 (RFC 7505 null MX, and
 * Exchange's RESOLVER.ADR.RecipientNotFound).
 */
const BAD_DESTINATION_DETAILS = new Set([0, 1, 2, 3, 6, 10]);
function isBadDestinationCode(enhanced: EnhancedCode | null): boolean {
  return enhanced?.subject === 1 && BAD_DESTINATION_DETAILS.has(enhanced.detail);
}

/** RFC 5321 §4.2.3 syntax and sequence replies, and 555 (MAIL/RCPT parameters not recognized). */
function isCommandErrorCode(code: number): boolean {
  return (code >= 500 && code <= 504) || code === 555;
}
