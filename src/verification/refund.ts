/**
 * The one rule for giving a verification unit back (docs/api.md, "Quota and rate limit"): a
 * result is free only when its `dns_error` was our own resolver's failure. A SERVFAIL or timeout
 * from a domain's own zone while our resolver answers its control queries is charged: anyone can
 * run a zone that fails, and verification must not become free by pointing at one.
 */
import { OUR_DNS_FAILURE, type VerificationResult } from './report.ts';

/** True when the unit charged for `result` is given back: a `dns_error` that was ours. */
export function isRefundable(result: VerificationResult): boolean {
  return result.reason === 'dns_error' && result[OUR_DNS_FAILURE] === true;
}
