/**
 * The result's `evidence`: which MX host and address the probe talked to, the
 * provider running it, the reply that decided, and the catch-all probe — so every verdict says
 * why. Derived from the report alone; where a stage did not run, its fields are null or empty.
 */
import { providerOfHost, providerOfMxHosts } from './checks/mailbox-provider.ts';
import type {
  CatchAllProbe,
  Evidence,
  MailboxProvider,
  ProbeReply,
  SmtpReplyEvidence,
  VerificationReport,
} from './report.ts';

/** The longest reply message shown, in UTF-16 code units (RFC 5321 allows 512 octets a line). */
export const MAX_EVIDENCE_MESSAGE = 512;

const NO_CATCH_ALL_PROBE: Readonly<CatchAllProbe> = { ran: false, outcome: null, reply: null };

/** The evidence of a report: nulls and `[]` where nothing was learnt. */
export function evidenceOf(report: VerificationReport): Evidence {
  const { dns, smtp } = report;
  const mxHosts = dns?.outcome === 'mx' || dns?.outcome === 'implicit_mx' ? dns.mxHosts : [];
  const probe = smtp?.catchAllProbe ?? NO_CATCH_ALL_PROBE;
  const mxHost = smtp?.mxHost ? withoutTrailingDot(smtp.mxHost) : null;
  return {
    mx_host: mxHost,
    mx_address: smtp?.mxAddress ?? null,
    // The host that answered speaks for the domain; without one, the domain's MX names do.
    provider: copyOf(providerOfHost(mxHost) ?? providerOfMxHosts(mxHosts)),
    smtp_reply: replyEvidence(smtp?.reply ?? null),
    catch_all_probe: { ran: probe.ran, outcome: probe.outcome, reply: replyEvidence(probe.reply) },
    catch_all_signals: (report.catchAllAssessment?.signals ?? []).map((signal) => ({
      signal: signal.signal,
      weight: signal.weight,
      detail: signal.detail,
    })),
  };
}

/** The evidence of a result no stage learnt anything for (an address never probed). */
export function noEvidence(): Evidence {
  return {
    mx_host: null,
    mx_address: null,
    provider: null,
    smtp_reply: null,
    catch_all_probe: { ran: false, outcome: null, reply: null },
    catch_all_signals: [],
  };
}

/** An SMTP reply as the result shows it: its text on one line, at most MAX_EVIDENCE_MESSAGE long. */
export function replyEvidence(reply: ProbeReply | null): SmtpReplyEvidence | null {
  if (reply === null) return null;
  return {
    code: reply.code,
    enhanced_code: reply.enhanced,
    message: oneBoundedLine(reply.text),
  };
}

// Line breaks (the joins of a multi-line reply included), tabs and other controls become spaces.
const BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g;

function oneBoundedLine(text: string): string {
  const line = text.replace(BREAKS_AND_CONTROLS, ' ').replace(/ {2,}/g, ' ').trim();
  if (line.length <= MAX_EVIDENCE_MESSAGE) return line;
  let end = MAX_EVIDENCE_MESSAGE - 1;
  // Never cut a surrogate pair in two.
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${line.slice(0, end).trimEnd()}…`;
}

function withoutTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function copyOf(provider: MailboxProvider | null): MailboxProvider | null {
  return provider === null ? null : { id: provider.id, name: provider.name, kind: provider.kind };
}
