/**
 * SMTP reply values shared by the classifier (core) and the SMTP session (adapter).
 */
import type { SmtpUnknownReason } from '../../report.ts';

/** One complete server reply (multi-line replies joined with '\n'). */
export interface SmtpReply {
  /** The 3-digit reply code (RFC 5321 §4.2). */
  code: number;
  /** The RFC 3463 enhanced status code (`5.1.1`), when the server gave one. */
  enhanced: string | null;
  /** The reply text, without codes, lines joined with '\n'. */
  text: string;
}

/** What one RCPT TO reply says about that mailbox. */
export type RcptVerdict =
  | { kind: 'deliverable' }
  | { kind: 'undeliverable' }
  | { kind: 'mailbox_full' }
  | { kind: 'mailbox_disabled' }
  /** Too many recipients in this transaction (452, 4.5.3): start a new one and ask again. */
  | { kind: 'too_many_recipients' }
  | { kind: 'unknown'; reason: SmtpUnknownReason };

/** What a reply before RCPT (banner, EHLO/HELO, MAIL FROM, STARTTLS) means for the session. */
export type SessionVerdict = { kind: 'ok' } | { kind: 'unknown'; reason: SmtpUnknownReason };
