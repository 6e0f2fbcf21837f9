/**
 * Builds verification reports for scoring and result tests: a plain, valid, confirmed address by
 * default, changed stage by stage with `with*` helpers.
 */
import type {
  CatchAllAssessment,
  DnsCheck,
  ListsCheck,
  SmtpCheck,
  SmtpUnknownReason,
  SmtpVerdict,
  SyntaxCheck,
  VerificationReport,
} from '../../src/verification/report.ts';

const MX: DnsCheck = { outcome: 'mx', mxHosts: [{ exchange: 'mx.example.com', priority: 10 }] };
const NO_LISTS: ListsCheck = {
  disposable: false,
  disposableSource: null,
  roleBased: false,
  freeProvider: false,
};

/** An SMTP result with the given verdict. */
export function smtp(
  verdict: SmtpVerdict,
  catchAll: boolean | null = false,
  unknownReason: SmtpUnknownReason | null = null,
): SmtpCheck {
  return {
    verdict,
    catchAll,
    unknownReason,
    reply: null,
    mxHost: 'mx.example.com',
    mxAddress: '192.0.2.25',
    catchAllProbe: null,
    retryAfterSeconds: null,
    tls: null,
  };
}

/** A report for jane@example.com: valid syntax, MX, mailbox confirmed, not catch-all. */
export function baseReport(): VerificationReport {
  return {
    normalized: {
      email: 'jane@example.com',
      localPart: 'jane',
      rawDomain: 'example.com',
      asciiDomain: 'example.com',
      unicodeDomain: 'example.com',
    },
    syntax: { valid: true, quotedLocalPart: false, addressLiteral: false, internationalized: false },
    lists: { ...NO_LISTS },
    suggestions: { suggestions: [] },
    dns: MX,
    smtp: smtp('deliverable', false),
    durationMs: 1,
  };
}

export type ReportChange = Partial<{
  syntax: SyntaxCheck;
  lists: Partial<ListsCheck>;
  suggestions: string[];
  dns: DnsCheck | null;
  smtp: SmtpCheck | null;
  catchAllAssessment: CatchAllAssessment;
}>;

/** The base report with some stages replaced. */
export function report(change: ReportChange = {}): VerificationReport {
  const base = baseReport();
  return {
    ...base,
    syntax: change.syntax ?? base.syntax,
    lists: { ...NO_LISTS, ...change.lists },
    suggestions: { suggestions: change.suggestions ?? [] },
    dns: change.dns === undefined ? base.dns : change.dns,
    smtp: change.smtp === undefined ? base.smtp : change.smtp,
    ...(change.catchAllAssessment !== undefined && { catchAllAssessment: change.catchAllAssessment }),
  };
}
