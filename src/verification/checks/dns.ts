/**
 * The DNS stage: the mail route of a domain. MX first (RFC 5321 §5.1), then A/AAAA as an implicit
 * MX; a null MX (RFC 7505) says no mail. NXDOMAIN, NODATA and our own failures stay distinct: a
 * resolver failure is never reported as a missing domain.
 */
import type { DnsAnswer, DnsResolver } from '../ports.ts';
import type { DnsCheck, DnsFailure, MxRecord } from '../report.ts';

// Results that carry no data are shared (and frozen, since every report holds the same one).
const NXDOMAIN: DnsCheck = Object.freeze({ outcome: 'nxdomain' });
const NULL_MX: DnsCheck = Object.freeze({ outcome: 'null_mx' });
const NO_MAIL_HOST: DnsCheck = Object.freeze({ outcome: 'no_mail_host' });
const FAILURES: Record<DnsFailure, DnsCheck> = {
  servfail: Object.freeze({ outcome: 'error', failure: 'servfail', retry: true }),
  timeout: Object.freeze({ outcome: 'error', failure: 'timeout', retry: true }),
  refused: Object.freeze({ outcome: 'error', failure: 'refused', retry: true }),
  network: Object.freeze({ outcome: 'error', failure: 'network', retry: true }),
};

/**
 * The MX outcome derived from one cached answer's records, kept so that a warm cache (which hands
 * back the same records array) costs one WeakMap lookup instead of a sort and new objects.
 */
const mxOutcomes = new WeakMap<MxRecord[], DnsCheck>();

/** True for `[192.0.2.1]`-style address literals, which name a host and are never looked up. */
export function isAddressLiteral(domain: string): boolean {
  return domain.charCodeAt(0) === 0x5b; // '['
}

/** A host name as compared and dialled: lower-case, no trailing root dot. */
function canonicalHost(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * MX hosts in preference order (a stable sort keeps equal preferences as DNS gave them), each host
 * once at its best preference. Null-MX entries mixed with real ones are dropped.
 */
export function orderMxHosts(records: readonly MxRecord[]): MxRecord[] {
  const sorted = records
    .map((record) => ({ exchange: canonicalHost(record.exchange), priority: record.priority }))
    .filter((record) => record.exchange !== '')
    .sort((x, y) => x.priority - y.priority);
  const seen = new Set<string>();
  return sorted.filter((record) => !seen.has(record.exchange) && seen.add(record.exchange));
}

function mxOutcome(records: MxRecord[]): DnsCheck {
  let outcome = mxOutcomes.get(records);
  if (outcome === undefined) {
    const mxHosts = orderMxHosts(records);
    // Only root exchanges ("MX 0 ."): the domain says it accepts no mail.
    outcome =
      mxHosts.length === 0
        ? NULL_MX
        : Object.freeze({
            outcome: 'mx',
            mxHosts: Object.freeze(mxHosts.map((mx) => Object.freeze(mx))) as MxRecord[],
          });
    mxOutcomes.set(records, outcome);
  }
  return outcome;
}

function hasRecords(answer: DnsAnswer<string[]>): boolean {
  return answer.kind === 'ok' && answer.records.length > 0;
}

/** The mail route of `asciiDomain` (lower-case A-labels), asked of `resolver`. */
export async function checkDns(asciiDomain: string, resolver: DnsResolver): Promise<DnsCheck> {
  if (isAddressLiteral(asciiDomain)) {
    // A literal is its own route (RFC 5321 §4.1.3); the pipeline normally stops before this.
    return { outcome: 'implicit_mx', mxHosts: [{ exchange: asciiDomain, priority: 0 }] };
  }
  const mx = await resolver.resolveMx(asciiDomain);
  if (mx.kind === 'ok' && mx.records.length > 0) return mxOutcome(mx.records);
  if (mx.kind === 'nxdomain') return NXDOMAIN;
  if (mx.kind === 'error') return FAILURES[mx.failure] ?? FAILURES.network;

  // NODATA for MX: RFC 5321 §5.1 falls back to the domain's own address records.
  const [a, aaaa] = await Promise.all([resolver.resolveA(asciiDomain), resolver.resolveAaaa(asciiDomain)]);
  if (hasRecords(a) || hasRecords(aaaa)) {
    return { outcome: 'implicit_mx', mxHosts: [{ exchange: canonicalHost(asciiDomain), priority: 0 }] };
  }
  // No address found: only a clean "nothing there" on both sides is decisive.
  if (a.kind === 'error') return FAILURES[a.failure] ?? FAILURES.network;
  if (aaaa.kind === 'error') return FAILURES[aaaa.failure] ?? FAILURES.network;
  return NO_MAIL_HOST;
}
