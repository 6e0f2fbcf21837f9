/**
 * Scoring: one pure function from a report to a verdict. The rules are the status table of docs/api.md, in its
 * order: the first rule that matches decides the status, base score and reason; modifiers then
 * lower the score for signs of a mistyped or unusual address.
 */
import type {
  CatchAllAssessment,
  Reason,
  SmtpUnknownReason,
  Status,
  Verdict,
  VerificationReport,
} from './report.ts';

/** Base scores per rule (the documented defaults). Kept as data so tests and docs read one table. */
export const BASE_SCORES = {
  syntaxInvalid: 0,
  domainNotFound: 2,
  noMailHost: 5,
  implicitMx: 30,
  mailboxRejected: 5,
  multipleRisks: 10,
  disposable: 15,
  roleBased: 50,
  /** Confirmed mailbox, and the catch-all probe proved the domain rejects unknown users. */
  confirmedNotCatchAll: 100,
  /** Confirmed mailbox, catch-all not tested: still VALID, a little less certain. */
  confirmedCatchAllUnknown: 95,
  catchAll: 70,
  mailboxFull: 40,
  probeInconclusive: 60,
  probeSkipped: 75,
  dnsError: 50,
} as const;

/**
 * The catch-all band: with a catch-all assessment, the score is its low end plus the confidence's
 * share of the width (confidence 0 gives 40, 100 gives 85); without one, BASE_SCORES.catchAll.
 * Its top stays below a confirmed mailbox (95) and its bottom at the mailbox-full score: a 250
 * from a server that accepts anything never weighs as much as a 250 that told mailboxes apart.
 */
export const CATCH_ALL_BAND = { low: 40, high: 85 } as const;

/** Score modifiers. */
export const MODIFIERS = {
  typoSuggestion: -25,
  quotedOrLiteral: -15,
} as const;

interface Rule {
  status: Status;
  score: number;
  reason: Reason;
}

const INCONCLUSIVE_REASONS: Record<Exclude<SmtpUnknownReason, 'probe_skipped'>, Reason> = {
  greylisted: 'greylisted',
  blocked: 'blocked',
  policy: 'policy',
  message_refused: 'message_refused',
  system_error: 'system_error',
  timeout: 'timeout',
  connect_failed: 'connect_failed',
  tls_failed: 'tls_failed',
  protocol_error: 'protocol_error',
  probe_refused: 'probe_refused',
};

/** Decides status, score and reason for a report; pure and total. */
export function scoreReport(report: VerificationReport): Verdict {
  const rule = firstMatchingRule(report);
  return { ...rule, score: clampScore(rule.score + modifiers(report)) };
}

function firstMatchingRule(report: VerificationReport): Rule {
  const { syntax, dns, smtp, lists } = report;
  if (!syntax.valid)
    return { status: 'INVALID_SYNTAX', score: BASE_SCORES.syntaxInvalid, reason: 'syntax_invalid' };

  if (dns?.outcome === 'nxdomain') {
    return { status: 'INVALID_DOMAIN', score: BASE_SCORES.domainNotFound, reason: 'domain_not_found' };
  }
  if (dns?.outcome === 'null_mx')
    return { status: 'NO_MX_RECORDS', score: BASE_SCORES.noMailHost, reason: 'null_mx' };
  if (dns?.outcome === 'no_mail_host') {
    return { status: 'NO_MX_RECORDS', score: BASE_SCORES.noMailHost, reason: 'no_mail_host' };
  }
  // An address literal names its host directly, like an implicit MX: there is no MX to trust.
  if (dns?.outcome === 'implicit_mx' || syntax.addressLiteral) {
    return { status: 'NO_MX_RECORDS', score: BASE_SCORES.implicitMx, reason: 'implicit_mx' };
  }

  if (smtp?.verdict === 'undeliverable') {
    return { status: 'INVALID', score: BASE_SCORES.mailboxRejected, reason: 'mailbox_rejected' };
  }
  if (smtp?.verdict === 'mailbox_disabled') {
    return { status: 'INVALID', score: BASE_SCORES.mailboxRejected, reason: 'mailbox_disabled' };
  }

  const disposable = lists?.disposable === true;
  const roleBased = lists?.roleBased === true;
  const mailboxFull = smtp?.verdict === 'mailbox_full';
  if (Number(disposable) + Number(roleBased) + Number(mailboxFull) >= 2) {
    return { status: 'INVALID', score: BASE_SCORES.multipleRisks, reason: 'multiple_risks' };
  }
  if (disposable) return { status: 'DISPOSABLE', score: BASE_SCORES.disposable, reason: 'disposable' };
  if (roleBased) return { status: 'ROLE_BASED', score: BASE_SCORES.roleBased, reason: 'role_account' };

  if (smtp?.verdict === 'deliverable' && smtp.catchAll !== true) {
    const score =
      smtp.catchAll === false ? BASE_SCORES.confirmedNotCatchAll : BASE_SCORES.confirmedCatchAllUnknown;
    return { status: 'VALID', score, reason: 'mailbox_confirmed' };
  }
  if (smtp?.verdict === 'catch_all' || (smtp?.verdict === 'deliverable' && smtp.catchAll === true)) {
    return { status: 'PROBABLY_VALID', score: catchAllScore(report.catchAllAssessment), reason: 'catch_all' };
  }
  if (mailboxFull)
    return { status: 'PROBABLY_VALID', score: BASE_SCORES.mailboxFull, reason: 'mailbox_full' };
  if (smtp?.verdict === 'unknown' && smtp.unknownReason !== null && smtp.unknownReason !== 'probe_skipped') {
    return {
      status: 'PROBABLY_VALID',
      score: BASE_SCORES.probeInconclusive,
      reason: INCONCLUSIVE_REASONS[smtp.unknownReason],
    };
  }
  if (dns?.outcome === 'error')
    return { status: 'PROBABLY_VALID', score: BASE_SCORES.dnsError, reason: 'dns_error' };
  // Probe skipped by configuration (or an unknown verdict without a reason): the route exists.
  return { status: 'PROBABLY_VALID', score: BASE_SCORES.probeSkipped, reason: 'probe_skipped' };
}

/** The catch-all rule's base score: within CATCH_ALL_BAND by the confidence, else the flat default. */
export function catchAllScore(assessment: CatchAllAssessment | undefined): number {
  const confidence = catchAllConfidence(assessment);
  if (confidence === null) return BASE_SCORES.catchAll;
  return CATCH_ALL_BAND.low + ((CATCH_ALL_BAND.high - CATCH_ALL_BAND.low) * confidence) / 100;
}

/** The assessment's confidence as the result shows it: a whole number 0-100; null without one. */
export function catchAllConfidence(assessment: CatchAllAssessment | undefined): number | null {
  if (assessment === undefined || !Number.isFinite(assessment.confidence)) return null;
  return Math.max(0, Math.min(100, Math.round(assessment.confidence)));
}

function modifiers(report: VerificationReport): number {
  let delta = 0;
  if ((report.suggestions?.suggestions.length ?? 0) > 0) delta += MODIFIERS.typoSuggestion;
  if (report.syntax.valid && (report.syntax.quotedLocalPart || report.syntax.addressLiteral)) {
    delta += MODIFIERS.quotedOrLiteral;
  }
  return delta;
}

function clampScore(score: number): number {
  return Math.max(0, Math.min(100, Math.round(score)));
}
