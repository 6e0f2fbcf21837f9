/**
 * The verification report: every stage's own result side by side, and the public result shape
 * derived from it. Scoring reads only this report.
 */

/** The SMTP verdict exposed as `checks.smtp`. */
export type SmtpVerdict =
  | 'deliverable'
  | 'undeliverable'
  | 'catch_all'
  | 'mailbox_full'
  | 'mailbox_disabled'
  | 'unknown'
  | 'skipped';

/** The public status (docs/api.md, "Status and score"). */
export type Status =
  | 'VALID'
  | 'PROBABLY_VALID'
  | 'INVALID'
  | 'INVALID_SYNTAX'
  | 'INVALID_DOMAIN'
  | 'NO_MX_RECORDS'
  | 'DISPOSABLE'
  | 'ROLE_BASED';

// Keyed by the union, so a status added to it breaks the build until it is listed here.
const STATUSES: Record<Status, true> = {
  VALID: true,
  PROBABLY_VALID: true,
  INVALID: true,
  INVALID_SYNTAX: true,
  INVALID_DOMAIN: true,
  NO_MX_RECORDS: true,
  DISPOSABLE: true,
  ROLE_BASED: true,
};
/** Every status, in the order of the status table (docs/api.md). */
export const STATUS_NAMES = Object.keys(STATUSES) as Status[];

/** The documented `reason` codes. Add codes only with documentation. */
export const REASONS = [
  'syntax_invalid',
  'domain_not_found',
  'null_mx',
  'no_mail_host',
  'implicit_mx',
  'mailbox_rejected',
  'mailbox_disabled',
  'multiple_risks',
  'disposable',
  'role_account',
  'mailbox_confirmed',
  'catch_all',
  'mailbox_full',
  'greylisted',
  'blocked',
  'policy',
  'message_refused',
  'system_error',
  'timeout',
  'connect_failed',
  'tls_failed',
  'protocol_error',
  'probe_refused',
  'probe_skipped',
  'dns_error',
  // The account's own feedback recorded a hard bounce (src/feedback/bounced.ts).
  'bounced',
] as const;
export type Reason = (typeof REASONS)[number];

/** normalize: trim, NFC, split at the last `@`, domain to ASCII (UTS-46). */
export interface NormalizedAddress {
  /** The address as submitted, trimmed (what the result echoes as `email`). */
  email: string;
  /** Local part after NFC; its case is kept (mailbox servers may be case-sensitive). */
  localPart: string;
  /** Domain as typed, NFC (Unicode kept); `''` when there is no `@`. */
  rawDomain: string;
  /** Domain in lower-case ASCII (A-labels), or the address literal lower-cased; null when IDNA failed. */
  asciiDomain: string | null;
  /** Domain with U-labels, for display; equals asciiDomain for ASCII domains. */
  unicodeDomain: string | null;
}

/** Why an address failed the syntax check. */
export type SyntaxErrorCode =
  | 'empty'
  | 'no_at_sign'
  | 'no_local_part'
  | 'no_domain'
  | 'local_part_too_long'
  | 'domain_too_long'
  | 'address_too_long'
  | 'label_too_long'
  | 'invalid_local_part'
  | 'invalid_domain'
  | 'invalid_address_literal'
  | 'idna_failed';

/** syntax: RFC 5321 mailbox (+ RFC 6531 UTF-8 local parts). */
export type SyntaxCheck =
  | {
      valid: true;
      /** The local part is a quoted-string (`"john doe"@example.com`). */
      quotedLocalPart: boolean;
      /** The domain is an address literal (`user@[192.0.2.1]`). */
      addressLiteral: boolean;
      /** The local part holds non-ASCII characters (needs SMTPUTF8). */
      internationalized: boolean;
    }
  | { valid: false; error: SyntaxErrorCode; message: string };

/** Where a disposable verdict came from. */
export type DisposableSource = 'list' | 'parent_domain' | 'mx_host' | 'operator_deny';

/** lists: disposable, role-based, free provider. */
export interface ListsCheck {
  disposable: boolean;
  disposableSource: DisposableSource | null;
  roleBased: boolean;
  freeProvider: boolean;
}

/** suggestions: whole corrected addresses, `[]` when none. */
export interface SuggestionCheck {
  suggestions: string[];
}

/** One MX record, as DNS gave it. */
export interface MxRecord {
  exchange: string;
  priority: number;
}

/**
 * DNS failures of a lookup, never of the address. `unconfirmed_nxdomain`: our resolver said the
 * domain does not exist while it failed its control queries too, so the answer is not believed.
 */
export type DnsFailure = 'servfail' | 'timeout' | 'refused' | 'network' | 'unconfirmed_nxdomain';

/**
 * DNS: the mail route for the domain.
 * - `mx`: MX records exist (sorted by preference);
 * - `implicit_mx`: no MX but A/AAAA (RFC 5321 §5.1), mxHosts holds the domain itself;
 * - `null_mx`: a single `MX 0 .` (RFC 7505);
 * - `no_mail_host`: the name exists but has neither MX nor A/AAAA;
 * - `nxdomain`: the domain does not exist;
 * - `error`: the lookup failed (SERVFAIL, timeout): says nothing about the address. `ours` is
 *   false when our resolver was shown healthy (the domain's own zone is broken); absent or true,
 *   the failure is ours.
 */
export type DnsCheck =
  | { outcome: 'mx'; mxHosts: MxRecord[] }
  | { outcome: 'implicit_mx'; mxHosts: MxRecord[] }
  | { outcome: 'null_mx' }
  | { outcome: 'no_mail_host' }
  | { outcome: 'nxdomain' }
  | { outcome: 'error'; failure: DnsFailure; retry: true; ours?: boolean };

/** Why a probe could not decide (`unknown`) or was not made. */
export type SmtpUnknownReason =
  | 'greylisted'
  | 'blocked'
  | 'policy'
  | 'message_refused'
  | 'system_error'
  | 'timeout'
  | 'connect_failed'
  | 'tls_failed'
  | 'protocol_error'
  | 'probe_refused'
  | 'probe_skipped';

/** One SMTP reply as the probe keeps it (multi-line replies joined with '\n'). */
export interface ProbeReply {
  code: number;
  /** The RFC 3463 enhanced status code (`5.1.1`), when the server gave one. */
  enhanced: string | null;
  text: string;
}

/**
 * What the domain's random-address RCPT (the catch-all probe) said: `accepted` (the domain takes
 * any recipient), `rejected` (refused as no such mailbox: it tells mailboxes apart) or
 * `inconclusive` (full, greylisted, blocked...).
 */
export type CatchAllProbeOutcome = 'accepted' | 'rejected' | 'inconclusive';

/** The catch-all probe behind an SMTP check. */
export interface CatchAllProbe {
  /** True when the random address was asked in the session that asked this address. */
  ran: boolean;
  /** Its outcome; remembered from an earlier probe when `ran` is false; null when none is known. */
  outcome: CatchAllProbeOutcome | null;
  /** Its reply, when it ran in this session. */
  reply: ProbeReply | null;
}

/** SMTP probe result. */
export interface SmtpCheck {
  verdict: SmtpVerdict;
  /** true/false once the domain's catch-all probe ran; null when not known. */
  catchAll: boolean | null;
  /** Set when verdict is `unknown` or `skipped`. */
  unknownReason: SmtpUnknownReason | null;
  /** The decisive reply, kept for support and for re-checks. */
  reply: ProbeReply | null;
  /** MX host that answered, when one did; else the last one tried, when a connection was tried. */
  mxHost: string | null;
  /** The address of that host the probe connected to (or was refused from connecting to). */
  mxAddress: string | null;
  /** The catch-all probe for the domain; null when the probe never reached RCPT. */
  catchAllProbe: CatchAllProbe | null;
  /** Greylisted results are re-checked later by list jobs. */
  retryAfterSeconds: number | null;
  /** Whether the session used STARTTLS and whether the certificate verified (recorded, never required). */
  tls: { used: boolean; verified: boolean } | null;
}

/** One reason behind a catch-all confidence, and its weight (positive raised the confidence). */
export interface CatchAllSignal {
  /** A short stable name (`local_part_pattern`, `provider_kind`, ...). */
  signal: string;
  weight: number;
  /** What was seen, in plain words. */
  detail: string;
}

/** How likely an address at a catch-all domain is to be real, and why. */
export interface CatchAllAssessment {
  /** 0-100. */
  confidence: number;
  signals: CatchAllSignal[];
}

/** Every stage's result; later stages are absent when an earlier one was decisive. */
export interface VerificationReport {
  normalized: NormalizedAddress;
  syntax: SyntaxCheck;
  lists: ListsCheck | null;
  suggestions: SuggestionCheck | null;
  dns: DnsCheck | null;
  smtp: SmtpCheck | null;
  /**
   * The catch-all assessment, for an address at a catch-all domain once one is computed; absent
   * otherwise. When present it sets `checks.catch_all_confidence`, the signals in the evidence and
   * the score within the catch-all band.
   */
  catchAllAssessment?: CatchAllAssessment;
  durationMs: number;
}

/** The verdict scoring derives from a report. */
export interface Verdict {
  status: Status;
  score: number;
  reason: Reason;
}

/** What kind of service a recognised mail provider is (see data/mailbox-providers.json). */
export type MailboxProviderKind = 'mailbox_host' | 'security_gateway';

/** A mail provider recognised from MX host names. */
export interface MailboxProvider {
  id: string;
  name: string;
  kind: MailboxProviderKind;
}

/** An SMTP reply as the public result shows it. */
export interface SmtpReplyEvidence {
  code: number;
  enhanced_code: string | null;
  /** The reply text on one line, bounded in length. */
  message: string;
}

/** What the verdict rests on: where the probe went and what it was told. */
export interface Evidence {
  mx_host: string | null;
  mx_address: string | null;
  provider: MailboxProvider | null;
  smtp_reply: SmtpReplyEvidence | null;
  catch_all_probe: {
    ran: boolean;
    outcome: CatchAllProbeOutcome | null;
    reply: SmtpReplyEvidence | null;
  };
  catch_all_signals: CatchAllSignal[];
}

/**
 * Internal mark on a result whose DNS lookup failed through our own fault (see `isRefundable`).
 * A symbol key: JSON, the API's serializer and the stores never see it, so the public shape stays
 * the documented one; a copy made with spread keeps it.
 */
export const OUR_DNS_FAILURE: unique symbol = Symbol('mailvet.ourDnsFailure');

/** The public verification result. */
export interface VerificationResult {
  email: string;
  checks: {
    syntax: boolean;
    domain_exists: boolean;
    mx_records: boolean;
    mailbox_exists: boolean;
    disposable: boolean;
    role_based: boolean;
    suggestions: string[];
    free_provider: boolean;
    catch_all: boolean | null;
    smtp: SmtpVerdict;
    /** 0-100 for an address at a catch-all domain once assessed, else null. */
    catch_all_confidence: number | null;
  };
  score: number;
  status: Status;
  reason: Reason;
  duration_ms: number;
  evidence: Evidence;
  /** Set (true) only when the DNS stage failed through our own fault; never serialized. */
  [OUR_DNS_FAILURE]?: true;
}
