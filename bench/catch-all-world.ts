/**
 * The mail world of a catch-all corpus split (tests/fixtures/catch-all/, see its README): each
 * corpus domain gets DNS records that make the real service see what the corpus says of it — an MX
 * on the mail world's catch-all host under a name the provider table recognises as the domain's
 * provider, SPF and DMARC records for its posture — and the corpus's feedback counts become
 * feedback events on addresses outside the list, so no address's own feedback tells its label.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAILBOX_PROVIDERS, providerOfHost } from '../src/verification/checks/mailbox-provider.ts';
import type { Zones } from '../tests/mailworld/dns-server.ts';
import type { CorpusDomain } from './catch-all.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The domains of a corpus split, as its JSONL lines hold them. */
export function readCorpusDomains(split: 'tuning' | 'held-out'): CorpusDomain[] {
  const text = readFileSync(`${ROOT}tests/fixtures/catch-all/${split}.jsonl`, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusDomain);
}

/**
 * The MX host name of a corpus domain: under the provider's first suffix in the provider table
 * (`mx1.h01-falconworks-test.mimecast.com`), or under the domain itself when it has no provider.
 * Throws when the table would not recognise the name as that provider: the world would then
 * measure something other than the corpus.
 */
export function mxHostOf(domain: CorpusDomain): string {
  if (domain.provider === null) return `mx.${domain.domain}`;
  const { id } = domain.provider;
  const suffix = MAILBOX_PROVIDERS.find((entry) => entry.id === id)?.mxSuffixes[0];
  if (suffix === undefined) throw new Error(`${domain.domain}: provider ${id} is not in the provider table`);
  const name = `mx1.${domain.domain.replaceAll('.', '-')}.${suffix.replaceAll('*', 'region-1')}`;
  const seen = providerOfHost(name);
  if (seen?.id !== id || seen.kind !== domain.provider.kind) {
    throw new Error(`${name} is recognised as ${seen?.id ?? 'nothing'}, not ${id}`);
  }
  return name;
}

/** TXT records of the domain itself for its SPF posture (none when absent). */
function spfRecords(domain: CorpusDomain): string[] {
  switch (domain.posture?.spf) {
    case 'sane':
      return ['v=spf1 mx -all'];
    case 'permissive':
      return ['v=spf1 mx ?all'];
    case 'invalid':
      // Two SPF records: RFC 7208 §4.5 makes that a permanent error.
      return ['v=spf1 mx -all', 'v=spf1 a -all'];
    default:
      return [];
  }
}

/**
 * Zones for every corpus domain, MX hosts answering with `catchAllHost` (the mail world's
 * catch-all SMTP host). A domain whose posture the corpus does not know (null) answers SERVFAIL for
 * `_dmarc.<domain>`: a failed lookup is how the service comes to have no posture.
 */
export function catchAllWorldZones(domains: readonly CorpusDomain[], catchAllHost: string): Zones {
  const zones: Zones = {};
  for (const domain of domains) {
    const mx = mxHostOf(domain);
    const spf = spfRecords(domain);
    zones[domain.domain] = { mx: [{ exchange: mx, priority: 10 }], ...(spf.length > 0 && { txt: spf }) };
    zones[mx] = { a: [catchAllHost] };
    const dmarc = domain.posture?.dmarc;
    if (domain.posture === null) zones[`_dmarc.${domain.domain}`] = { fail: 'servfail' };
    else if (dmarc !== undefined && dmarc !== 'absent') {
      zones[`_dmarc.${domain.domain}`] = { txt: [`v=DMARC1; p=${dmarc}`] };
    }
  }
  return zones;
}

/** One event of `POST /api/v1/feedback/bulk`. */
export interface FeedbackEventBody {
  email: string;
  event: 'hard_bounce' | 'delivered';
}

/**
 * The corpus's feedback counts as events, one address per event so the service counts them as
 * the corpus does (per address). Deliveries go first to the domain's `confirmed` addresses that
 * are not in the list, then to made-up ones; bounces to made-up ones. None is a list address.
 */
export function feedbackEvents(domain: CorpusDomain): FeedbackEventBody[] {
  if (domain.feedback === null) return [];
  const inList = new Set(domain.addresses.map((address) => address.localPart.toLowerCase()));
  const unused = (localPart: string) => !inList.has(localPart.toLowerCase());
  const made = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).filter(unused);
  const delivered = [
    ...domain.confirmed.filter(unused),
    ...made('sent-delivered-', domain.feedback.delivered),
  ].slice(0, domain.feedback.delivered);
  const bounced = made('sent-bounced-', domain.feedback.hardBounces);
  return [
    ...delivered.map((localPart) => ({
      email: `${localPart}@${domain.domain}`,
      event: 'delivered' as const,
    })),
    ...bounced.map((localPart) => ({
      email: `${localPart}@${domain.domain}`,
      event: 'hard_bounce' as const,
    })),
  ];
}
