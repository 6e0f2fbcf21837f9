/**
 * Builds src/verification/data/common-mail-domains.json: the 5,000 most common real mail
 * domains, which the suggestions stage never corrects and which its tests use as a
 * false-positive set. Reproducible from what `npm ci` installs plus hand-written lists:
 *
 *   node --import tsx scripts/build-domain-lists.ts           # (re)writes the file
 *   node --import tsx scripts/build-domain-lists.ts --check   # exits 1 if the file is stale
 *
 * Order (most common first): popular-domains.json (hand-ranked big providers), email-providers'
 * common.json (domains with a Majestic Million rank under 100,000, in its order), the hand-written
 * providers/ISPs and universities of scripts/data/curated-mail-domains.json, then the rest of
 * email-providers' all.json. Only the first sources are ranked by use; the rest of all.json is
 * ordered by plain heuristics (popular TLD first, vanity and numbered names last).
 * Left out: disposable domains (disposable-email-domains-js, the domain or a parent), reserved
 * names (RFC 2606/6761), placeholders, unknown TLDs, free subdomains, and names of unranked
 * sources that look like typos of a popular domain (all.json lists gmial.com, gmai.com...).
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { validTlds } from '../src/verification/checks/suggest-data.ts';
import { osaDistance } from '../src/verification/checks/suggest-distance.ts';
import popularData from '../src/verification/data/popular-domains.json' with { type: 'json' };
import tldData from '../src/verification/data/popular-tlds.json' with { type: 'json' };

const TARGET_COUNT = 5000;
const OUTPUT = 'src/verification/data/common-mail-domains.json';
const require = createRequire(import.meta.url);

const allProviders: string[] = require('email-providers/all.json');
const rankedProviders: string[] = require('email-providers/common.json');
const disposable = new Set<string>(
  require('disposable-email-domains-js/dist/dict/disposable_email_blocklist.json'),
);
const curated = JSON.parse(readFileSync('scripts/data/curated-mail-domains.json', 'utf8')) as {
  providers: string[];
  universities: string[];
};

const twoLabelSuffixes = new Set(tldData.popular.filter((s) => s.includes('.')));
for (const [tld, labels] of Object.entries(tldData.secondLevel)) {
  for (const label of labels) twoLabelSuffixes.add(`${label}.${tld}`);
}
const popularTldRank = new Map(tldData.popular.map((suffix, rank) => [suffix, rank]));
const RESERVED_TLDS = new Set(['test', 'example', 'invalid', 'localhost', 'local', 'onion']);
const PLACEHOLDERS = new Set(['yourdomain.com', 'mydomain.com', 'domain.com', 'email-tester.com']);
const LDH = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

type Rejection = 'syntax' | 'tld' | 'reserved' | 'disposable' | 'subdomain' | 'typo';
const rejected = new Map<Rejection, string[]>();

/** Why a domain cannot be on the list, or null when it can. */
function rejectionOf(domain: string, trusted: boolean): Rejection | null {
  if (!LDH.test(domain)) return 'syntax';
  const labels = domain.split('.');
  const tld = labels[labels.length - 1]!;
  if (RESERVED_TLDS.has(tld) || labels.includes('example') || PLACEHOLDERS.has(domain)) return 'reserved';
  if (domain.startsWith('test.') || /^test\.[a-z]+$/.test(labels.slice(-2).join('.'))) return 'reserved';
  if (!validTlds.has(tld)) return 'tld';
  for (let i = 0; i < labels.length - 1; i++) {
    if (disposable.has(labels.slice(i).join('.'))) return 'disposable';
  }
  if (trusted) return null;
  const lastTwo = labels.slice(-2).join('.');
  if (labels.length > 3 || (labels.length === 3 && !twoLabelSuffixes.has(lastTwo))) return 'subdomain';
  if (looksLikeTypo(domain)) return 'typo';
  return null;
}

const popularSlds = popularData.domains.map((domain, rank) => ({
  domain,
  sld: domain.split('.')[0]!,
  major: rank < popularData.majorCount,
}));

/**
 * A name one edit from a popular domain (two from a giant provider's), or whose first label is
 * one edit from a giant provider's name: how typo-squatted domains look. Real neighbours
 * (mail.com, ymail.com, gmx.com) come from the ranked or hand-written sources, which are trusted.
 */
function looksLikeTypo(domain: string): boolean {
  const sld = domain.split('.')[0]!;
  return popularSlds.some((p) => {
    if (p.domain === domain) return false;
    const max = p.major ? 2 : 1;
    if (osaDistance(domain, p.domain, max) <= max) return true;
    return p.major && sld !== p.sld && sld.length >= 4 && osaDistance(sld, p.sld, 1) <= 1;
  });
}

/** Sort key for the unranked rest of all.json: plain names under popular TLDs first. */
function tailOrder(domain: string): number {
  const labels = domain.split('.');
  const suffix = labels.length === 3 ? labels.slice(-2).join('.') : labels[labels.length - 1]!;
  const tldRank = popularTldRank.get(suffix) ?? popularTldRank.size;
  const vanity = /^mail2|\d/.test(labels[0]!) ? 1 : 0;
  return vanity * 10_000 + tldRank;
}

const sources: Array<{ name: string; domains: string[]; trusted: boolean }> = [
  { name: 'popular-domains.json', domains: popularData.domains, trusted: true },
  { name: 'email-providers common.json (Majestic rank < 100,000)', domains: rankedProviders, trusted: true },
  { name: 'curated providers and ISPs', domains: curated.providers, trusted: true },
  { name: 'curated universities', domains: curated.universities, trusted: true },
  {
    name: 'email-providers all.json (rest, heuristic order)',
    domains: [...allProviders].sort((a, b) => tailOrder(a) - tailOrder(b) || a.localeCompare(b)),
    trusted: false,
  },
];

const chosen = new Set<string>();
const perSource: string[] = [];
for (const source of sources) {
  const before = chosen.size;
  for (const raw of source.domains) {
    if (chosen.size >= TARGET_COUNT) break;
    const domain = raw.trim().toLowerCase();
    if (chosen.has(domain)) continue;
    const rejection = rejectionOf(domain, source.trusted);
    if (rejection !== null) {
      rejected.set(rejection, [...(rejected.get(rejection) ?? []), domain]);
      continue;
    }
    chosen.add(domain);
  }
  perSource.push(`${source.name}: ${chosen.size - before}`);
}

const domains = [...chosen];
const output = {
  _source:
    'Generated by scripts/build-domain-lists.ts (do not edit by hand). Most common first: ' +
    'src/verification/data/popular-domains.json, the npm package email-providers (common.json: ' +
    'Majestic Million rank < 100,000; then all.json), hand-written providers, ISPs and universities ' +
    '(scripts/data/curated-mail-domains.json). Disposable domains (disposable-email-domains-js), ' +
    'reserved names, unknown TLDs and typo-like names from unranked sources are left out. Only the ' +
    'first sources are ranked by use; the tail of all.json is in heuristic order.',
  count: domains.length,
  domains,
};
const text = `${JSON.stringify(output, null, 1).replace(/\n {2}"/g, '\n  "')}\n`;
if (process.argv.includes('--check')) {
  const current = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
  console.log(current === text ? `${OUTPUT} is up to date` : `${OUTPUT} is stale: run this script`);
  if (current !== text) process.exitCode = 1;
} else {
  writeFileSync(OUTPUT, text);
  console.log(`wrote ${OUTPUT}: ${domains.length} domains`);
}
for (const line of perSource) console.log(`  ${line}`);
for (const [reason, list] of rejected) {
  console.log(`  left out (${reason}): ${list.length}${reason === 'typo' ? `: ${list.join(' ')}` : ''}`);
}
if (domains.length < TARGET_COUNT) {
  console.error(`only ${domains.length} domains, fewer than ${TARGET_COUNT}`);
  process.exitCode = 1;
}
