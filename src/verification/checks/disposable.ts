/**
 * Disposable domains: the maintained list from `disposable-email-domains-js`, operator allow and
 * deny entries, and the MX hosts of known throwaway services. Every rule matches the domain itself
 * or any parent domain on a label boundary (`a.b.mailinator.com` yes, `mymailinator.com` no).
 */
import maintainedList from 'disposable-email-domains-js/dist/dict/disposable_email_blocklist.json' with {
  type: 'json',
};
import mxData from '../data/disposable-mx-hosts.json' with { type: 'json' };
import type { DisposableSource } from '../report.ts';

/** What one domain-table entry says; a stronger rule overwrites a weaker one (allow > deny > list). */
const LIST = 1;
const DENY = 2;
const ALLOW = 3;
type Rule = typeof LIST | typeof DENY | typeof ALLOW;

/** What a walk up the domain's labels found. */
export type DomainVerdict = DisposableSource | 'allowed' | null;

/** Longest name DNS allows (RFC 1035); longer suffixes cannot be on any list, so they are never looked up. */
const MAX_DOMAIN_LENGTH = 255;

/** One table per checker: allow, deny and the maintained list folded into a single Map lookup per label. */
export interface DomainRules {
  readonly rules: ReadonlyMap<string, Rule>;
  /** Any allow entry exists: the walk must then go on past the first hit, as allow beats everything. */
  readonly hasAllow: boolean;
  /** A single-label entry (a whole TLD) exists: only then is the TLD itself looked up. */
  readonly checkTld: boolean;
}

/** Builds the rule table from the maintained list plus operator allow and deny entries. */
export function buildDomainRules(allowDomains: Iterable<string>, denyDomains: Iterable<string>): DomainRules {
  const rules = new Map<string, Rule>();
  for (const domain of maintainedList) rules.set(domain, LIST);
  for (const domain of cleanEntries(denyDomains)) rules.set(domain, DENY);
  let hasAllow = false;
  for (const domain of cleanEntries(allowDomains)) {
    rules.set(domain, ALLOW);
    hasAllow = true;
  }
  let checkTld = false;
  for (const name of rules.keys()) if (!name.includes('.')) checkTld = true;
  return { rules, hasAllow, checkTld };
}

/** Whether `asciiDomain` (lower-case ASCII) or a parent is allowed, denied, or on the maintained list. */
export function classifyDomain(asciiDomain: string, table: DomainRules): DomainVerdict {
  const domain = withoutRootDot(asciiDomain);
  let start = walkStart(domain);
  if (start === -1) return null;
  let found: DomainVerdict = null;
  let name = start === 0 ? domain : domain.slice(start);
  for (;;) {
    const rule = table.rules.get(name);
    if (rule === ALLOW) return 'allowed';
    if (rule !== undefined && found === null) {
      found = rule === DENY ? 'operator_deny' : start === 0 ? 'list' : 'parent_domain';
      if (!table.hasAllow) return found;
    }
    const dot = domain.indexOf('.', start);
    if (dot === -1) return found;
    start = dot + 1;
    if (!table.checkTld && domain.indexOf('.', start) === -1) return found;
    name = domain.slice(start);
  }
}

/** The MX-host domains of throwaway services (data file) plus the operator's own. */
export function buildMxHostDomains(extra: Iterable<string>): ReadonlySet<string> {
  return new Set([...mxData.domains, ...cleanEntries(extra)]);
}

/** Whether any MX host is a known throwaway service's server, or a subdomain of one. */
export function hasDisposableMxHost(mxHosts: readonly string[], mxDomains: ReadonlySet<string>): boolean {
  for (const exchange of mxHosts) {
    if (typeof exchange !== 'string') continue;
    // DNS keeps the case the zone was written in, and a null MX comes back as ''.
    const host = withoutRootDot(exchange.trim().toLowerCase());
    if (host === '' || host.length > MAX_DOMAIN_LENGTH) continue;
    let start = 0;
    while (start !== -1) {
      if (mxDomains.has(start === 0 ? host : host.slice(start))) return true;
      const dot = host.indexOf('.', start);
      start = dot === -1 ? -1 : dot + 1;
    }
  }
  return false;
}

/** Lower-cases operator entries and drops the `*.`/`.` prefix and root dot people write out of habit. */
export function* cleanEntries(entries: Iterable<string>): Generator<string> {
  for (const entry of entries) {
    if (typeof entry !== 'string') continue;
    let domain = withoutRootDot(entry.trim().toLowerCase());
    if (domain.startsWith('*.')) domain = domain.slice(2);
    else if (domain.startsWith('.')) domain = domain.slice(1);
    if (domain !== '') yield domain;
  }
}

function withoutRootDot(domain: string): string {
  return domain.endsWith('.') ? domain.slice(0, -1) : domain;
}

/** Where the walk starts: 0, or for an over-long name the first label boundary leaving a suffix DNS allows. */
function walkStart(domain: string): number {
  if (domain.length <= MAX_DOMAIN_LENGTH) return 0;
  const dot = domain.indexOf('.', domain.length - MAX_DOMAIN_LENGTH - 1);
  return dot === -1 ? -1 : dot + 1;
}
