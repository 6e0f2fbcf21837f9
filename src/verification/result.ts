/**
 * Shapes a report and its verdict into the public result (docs/api.md). The booleans follow the
 * "likely" reading the contract gives `mailbox_exists`: only what a check disproved is reported false.
 */
import { evidenceOf } from './evidence.ts';
import {
  OUR_DNS_FAILURE,
  type SmtpVerdict,
  type Verdict,
  type VerificationReport,
  type VerificationResult,
} from './report.ts';
import { catchAllConfidence } from './scoring.ts';

/** Builds the public verification result from a report and its verdict. */
export function toVerificationResult(report: VerificationReport, verdict: Verdict): VerificationResult {
  const { syntax, dns, smtp, lists } = report;
  const acceptsMail =
    dns?.outcome === 'mx' || dns?.outcome === 'implicit_mx' || (syntax.valid && syntax.addressLiteral);
  // Our own DNS failure disproves nothing: the domain and mailbox are reported as not disproven.
  const dnsUnknown = dns?.outcome === 'error';
  const rejected = smtp?.verdict === 'undeliverable' || smtp?.verdict === 'mailbox_disabled';
  const result: VerificationResult = {
    email: report.normalized.email,
    checks: {
      syntax: syntax.valid,
      domain_exists: syntax.valid && (dns === null ? syntax.addressLiteral : dns.outcome !== 'nxdomain'),
      mx_records: dns?.outcome === 'mx',
      mailbox_exists: syntax.valid && (acceptsMail || dnsUnknown) && !rejected,
      disposable: lists?.disposable ?? false,
      role_based: lists?.roleBased ?? false,
      suggestions: report.suggestions?.suggestions ?? [],
      free_provider: lists?.freeProvider ?? false,
      catch_all: smtp?.catchAll ?? null,
      smtp: publicSmtpVerdict(report),
      catch_all_confidence: catchAllConfidence(report.catchAllAssessment),
    },
    score: verdict.score,
    status: verdict.status,
    reason: verdict.reason,
    duration_ms: Math.max(0, Math.round(report.durationMs)),
    evidence: evidenceOf(report),
  };
  // A failure no health check disowned is ours (the status table's "our DNS lookup failed" row).
  if (dns?.outcome === 'error' && dns.ours !== false) result[OUR_DNS_FAILURE] = true;
  return result;
}

function publicSmtpVerdict(report: VerificationReport): SmtpVerdict {
  const smtp = report.smtp;
  if (smtp === null) return 'skipped';
  // The contract: "a catch-all domain gives `catch_all`", even when the server said 250 for the address.
  if (smtp.verdict === 'deliverable' && smtp.catchAll === true) return 'catch_all';
  return smtp.verdict;
}
