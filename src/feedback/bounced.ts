/**
 * The one rule that turns feedback into a verdict: an address the account recorded
 * a hard bounce for, with no delivery recorded at a later instant, is INVALID with reason
 * `bounced` for that account. A later `delivered` lifts it (the mailbox came back, or the bounce
 * was a mistake); soft bounces and complaints never change a verdict. Pure: the service looks the
 * feedback up, this decides.
 */
import type { Status, VerificationResult } from '../verification/report.ts';
import type { AddressFeedback } from './ports.ts';

/** The status table's INVALID row (docs/api.md): a rejected mailbox scores 5, and a bounced one is no better. */
export const BOUNCED_SCORE = 5;

/**
 * Verdicts a bounce leaves alone: the address cannot even be addressed (bad syntax, no domain, no
 * mail host), which already says "do not send" and says why more precisely.
 */
const UNADDRESSABLE: ReadonlySet<Status> = new Set<Status>([
  'INVALID_SYNTAX',
  'INVALID_DOMAIN',
  'NO_MX_RECORDS',
]);

/** True when the account's feedback makes the address bounced. */
export function isBounced(feedback: AddressFeedback): boolean {
  const bounce = feedback.hard_bounce;
  if (bounce === null) return false;
  // A delivery at the very instant of the bounce does not lift it: the bounce is the safer reading.
  return feedback.delivered === null || feedback.delivered <= bounce;
}

/** True when a bounce would change this verdict (so its feedback is worth looking up). */
export function mayBeBounced(result: Pick<VerificationResult, 'status'>): boolean {
  return !UNADDRESSABLE.has(result.status);
}

/** The result for a bounced address: INVALID, `bounced`, score 5, the mailbox taken as gone; the checks otherwise as verified. */
export function bouncedResult(result: VerificationResult): VerificationResult {
  return {
    ...result,
    checks: { ...result.checks, mailbox_exists: false },
    score: BOUNCED_SCORE,
    status: 'INVALID',
    reason: 'bounced',
  };
}
