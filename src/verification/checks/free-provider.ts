/**
 * Free (public consumer) mail providers: gmail.com, yahoo.*, gmx.*, mail.ru, qq.com... The list is
 * the npm package `email-providers` (all.json), corrected by `data/free-provider-overrides.json`
 * (missing consumer domains added, company and placeholder domains removed; see its `_comment`).
 */
import providers from 'email-providers/all.json' with { type: 'json' };
import overrides from '../data/free-provider-overrides.json' with { type: 'json' };

const FREE_PROVIDERS: ReadonlySet<string> = buildFreeProviders();

function buildFreeProviders(): Set<string> {
  const domains = new Set<string>(providers);
  for (const domain of overrides.add) domains.add(domain);
  for (const domain of overrides.remove) domains.delete(domain);
  return domains;
}

/**
 * Whether `asciiDomain` (lower-case ASCII) is a public mail provider's own domain. Exact match only:
 * `mail.gmail.com` or `corp.yahoo.com` hold no consumer mailboxes.
 */
export function isFreeProviderDomain(asciiDomain: string): boolean {
  return FREE_PROVIDERS.has(asciiDomain.endsWith('.') ? asciiDomain.slice(0, -1) : asciiDomain);
}

/** How many provider domains are loaded (for tests and start-up logs). */
export function freeProviderCount(): number {
  return FREE_PROVIDERS.size;
}
