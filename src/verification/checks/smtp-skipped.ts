/**
 * The SMTP stage while probing is off (MAILVET_SMTP_PROBE=false, or until the real prober lands):
 * it claims nothing it did not obtain, so every result says `skipped`.
 */
import type { MailboxProber } from '../ports.ts';
import type { SmtpCheck } from '../report.ts';

/** The result of a probe that was not made. */
export const SKIPPED_PROBE: Readonly<SmtpCheck> = Object.freeze({
  verdict: 'skipped',
  catchAll: null,
  unknownReason: 'probe_skipped',
  reply: null,
  mxHost: null,
  mxAddress: null,
  catchAllProbe: null,
  retryAfterSeconds: null,
  tls: null,
});

/** A prober that never connects anywhere. */
export class SkippingProber implements MailboxProber {
  probe(): Promise<SmtpCheck> {
    return Promise.resolve(SKIPPED_PROBE);
  }
}
