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
const FAILURE_KINDS: readonly DnsFailure[] = [
  'servfail',
  'timeout',
  'refused',
  'network',
  'unconfirmed_nxdomain',
];

/** One frozen failure result per kind, for each thing a resolver may know about whose it is. */
function failureTable(ours: boolean | undefined): Record<DnsFailure, DnsCheck> {
  const table = {} as Record<DnsFailure, DnsCheck>;
  for (const failure of FAILURE_KINDS) {
    table[failure] = Object.freeze(
      ours === undefined
        ? { outcome: 'error', failure, retry: true }
        : { outcome: 'error', failure, retry: true, ours },
    );
  }
  return table;
}
// Unknown (no health check behind the resolver), ours (it failed its control queries too), and
// the domain's (it answered them).
const FAILURES = failureTable(undefined);
const OUR_FAILURES = failureTable(true);
const DOMAIN_FAILURES = failureTable(false);

/** The DNS stage's result for a failed answer, keeping whose failure the resolver said it was. */
function failureOf(answer: { failure: DnsFailure; ours?: boolean }): DnsCheck {
  const table = answer.ours === undefined ? FAILURES : answer.ours ? OUR_FAILURES : DOMAIN_FAILURES;
  return table[answer.failure] ?? table.network;
}

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
  if (mx.kind === 'error') return failureOf(mx);

  // NODATA for MX: RFC 5321 §5.1 falls back to the domain's own address records.
  const [a, aaaa] = await Promise.all([resolver.resolveA(asciiDomain), resolver.resolveAaaa(asciiDomain)]);
  if (hasRecords(a) || hasRecords(aaaa)) {
    return { outcome: 'implicit_mx', mxHosts: [{ exchange: canonicalHost(asciiDomain), priority: 0 }] };
  }
  // No address found: only a clean "nothing there" on both sides is decisive.
  if (a.kind === 'error') return failureOf(a);
  if (aaaa.kind === 'error') return failureOf(aaaa);
  return NO_MAIL_HOST;
}
