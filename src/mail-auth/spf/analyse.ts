/**
 * A sender's view of its SPF policy: the whole tree of includes and redirects walked without an IP
 * address, counting the terms that make DNS queries against RFC 7208's limit of 10 (§4.6.4) and
 * the lookups that find nothing (void lookups, at most 2), and gathering the addresses the policy
 * authorises (for the blocklist check). The record syntax is the evaluator's (record.ts).
 */
import { parseIp } from './ip-address.ts';
import type { SpfDns } from './ports.ts';
import { parseSpfRecord, pickSpfRecord, type SpfQualifier } from './record.ts';

/** What the walk found. */
export interface SpfAnalysis {
  /** The domain's own `v=spf1` text; null when it has none. */
  record: string | null;
  /** Why the policy is unusable, in plain words (a permanent error), or why it could not be read. */
  problem: { kind: 'none' | 'many' | 'syntax' | 'permerror' | 'temperror'; text: string } | null;
  /** Terms that query DNS (include, a, mx, ptr, exists, redirect), the whole tree. */
  lookups: number;
  /** Lookups that found nothing (NXDOMAIN or no records). */
  voidLookups: number;
  /** The top record's `all` qualifier, or null when it has none (nor a redirect). */
  allQualifier: SpfQualifier | null;
  hasRedirect: boolean;
  /** The tree uses `ptr` (RFC 7208 §5.5: do not). */
  usesPtr: boolean;
  /** Includes and redirects followed, in order. */
  domainsVisited: string[];
  /** Single addresses the policy authorises (ip4/ip6 host entries, a and mx targets), deduplicated. */
  sendingAddresses: string[];
  /** Networks (ip4/ip6 with a prefix) it authorises, as written. */
  networks: string[];
}

/** Walks no further than this many lookups: past the limit the answer is already "too many". */
const WALK_LIMIT = 20;
/** Addresses gathered for the blocklist check at most. */
const MAX_ADDRESSES = 20;

interface Walk {
  dns: SpfDns;
  lookups: number;
  voidLookups: number;
  usesPtr: boolean;
  visited: string[];
  addresses: Set<string>;
  networks: string[];
  stop: SpfAnalysis['problem'];
}

/** Analyses the SPF policy of `domain`. Never throws for DNS trouble. */
export async function analyseSpf(dns: SpfDns, domain: string): Promise<SpfAnalysis> {
  const walk: Walk = {
    dns,
    lookups: 0,
    voidLookups: 0,
    usesPtr: false,
    visited: [],
    addresses: new Set(),
    networks: [],
    stop: null,
  };
  const top = await readPolicy(walk, domain);
  const base = {
    lookups: walk.lookups,
    voidLookups: walk.voidLookups,
    usesPtr: walk.usesPtr,
    domainsVisited: walk.visited,
    sendingAddresses: [...walk.addresses].slice(0, MAX_ADDRESSES),
    networks: walk.networks,
  };
  if (typeof top === 'object' && 'kind' in top) {
    return { ...base, record: top.record, problem: top.problem, allQualifier: null, hasRedirect: false };
  }
  return { ...base, record: top.text, problem: walk.stop, allQualifier: top.all, hasRedirect: top.redirect };
}

type TopPolicy = { text: string; all: SpfQualifier | null; redirect: boolean };
type Unusable = { kind: 'unusable'; record: string | null; problem: NonNullable<SpfAnalysis['problem']> };

async function readPolicy(walk: Walk, domain: string): Promise<TopPolicy | Unusable> {
  const txt = await walk.dns.resolveTxt(domain);
  if (txt.kind === 'error') {
    return unusable(null, 'temperror', `the TXT lookup of ${domain} failed (${txt.failure})`);
  }
  const picked = pickSpfRecord(txt.kind === 'ok' ? txt.records : []);
  if (picked.kind === 'none') return unusable(null, 'none', `${domain} publishes no v=spf1 record`);
  if (picked.kind === 'many')
    return unusable(null, 'many', `${domain} publishes more than one v=spf1 record`);
  const record = parseSpfRecord(picked.text);
  if (typeof record === 'string') return unusable(picked.text, 'syntax', record);
  const all = record.mechanisms.find((mechanism) => mechanism.kind === 'all');
  await walkRecord(walk, domain, record);
  return { text: picked.text, all: all?.qualifier ?? null, redirect: record.redirect !== null };
}

function unusable(record: string | null, kind: Unusable['problem']['kind'], text: string): Unusable {
  return { kind: 'unusable', record, problem: { kind, text } };
}

async function walkRecord(
  walk: Walk,
  domain: string,
  record: Exclude<ReturnType<typeof parseSpfRecord>, string>,
): Promise<void> {
  for (const mechanism of record.mechanisms) {
    if (walk.lookups > WALK_LIMIT || walk.stop?.kind === 'temperror') return;
    switch (mechanism.kind) {
      case 'ip4':
      case 'ip6': {
        const host = mechanism.prefix === (mechanism.kind === 'ip4' ? 32 : 128);
        if (host && parseIp(mechanism.network) !== null) walk.addresses.add(mechanism.network);
        else walk.networks.push(mechanism.text.replace(/^[+\-~?]/, ''));
        break;
      }
      case 'a':
      case 'mx': {
        walk.lookups++;
        // A macro target depends on the message: counted, not looked up.
        const target = mechanism.domain ?? domain;
        if (target.includes('%')) break;
        await addressesOf(walk, mechanism.kind, target);
        break;
      }
      case 'ptr':
        walk.lookups++;
        walk.usesPtr = true;
        break;
      case 'exists':
        walk.lookups++;
        break;
      case 'include':
        walk.lookups++;
        if (!mechanism.domain.includes('%')) await follow(walk, mechanism.domain, 'include');
        break;
      case 'all':
        break;
    }
  }
  if (record.redirect !== null && walk.lookups <= WALK_LIMIT) {
    walk.lookups++;
    if (!record.redirect.includes('%')) await follow(walk, record.redirect, 'redirect');
  }
}

async function follow(walk: Walk, target: string, how: 'include' | 'redirect'): Promise<void> {
  const name = target.toLowerCase().replace(/\.$/, '');
  walk.visited.push(name);
  const txt = await walk.dns.resolveTxt(name);
  if (txt.kind === 'error') {
    walk.stop ??= { kind: 'temperror', text: `the TXT lookup of ${name} failed (${txt.failure})` };
    return;
  }
  const picked = pickSpfRecord(txt.kind === 'ok' ? txt.records : []);
  if (picked.kind !== 'one') {
    if (picked.kind === 'none') walk.voidLookups += txt.kind === 'ok' && txt.records.length > 0 ? 0 : 1;
    const why =
      picked.kind === 'none' ? 'publishes no v=spf1 record' : 'publishes more than one v=spf1 record';
    walk.stop ??= { kind: 'permerror', text: `${how}:${name} ${why}` };
    return;
  }
  const record = parseSpfRecord(picked.text);
  if (typeof record === 'string') {
    walk.stop ??= { kind: 'permerror', text: `${how}:${name}: ${record}` };
    return;
  }
  await walkRecord(walk, name, record);
}

async function addressesOf(walk: Walk, kind: 'a' | 'mx', target: string): Promise<void> {
  const name = target.toLowerCase().replace(/\.$/, '');
  const hosts: string[] = [];
  if (kind === 'mx') {
    const mx = await walk.dns.resolveMx(name);
    if (mx.kind === 'error') return;
    const exchanges = mx.kind === 'ok' ? mx.records.map((record) => record.exchange).filter(Boolean) : [];
    if (exchanges.length === 0) walk.voidLookups++;
    hosts.push(...exchanges.slice(0, 10));
  } else hosts.push(name);
  for (const host of hosts) {
    const [v4, v6] = await Promise.all([walk.dns.resolveA(host), walk.dns.resolveAaaa(host)]);
    const found = [v4, v6].flatMap((answer) => (answer.kind === 'ok' ? answer.records : []));
    if (kind === 'a' && found.length === 0 && v4.kind !== 'error') walk.voidLookups++;
    for (const address of found) walk.addresses.add(address);
  }
}

/** Whether the walk broke RFC 7208's limits. */
export function overLimits(analysis: SpfAnalysis): { lookups: boolean; voids: boolean } {
  return { lookups: analysis.lookups > 10, voids: analysis.voidLookups > 2 };
}
