/**
 * The provider behind an MX host, for the SMTP metrics' `provider` label: one of the names in
 * `data/mx-providers.json`, else `other`. A bounded label keeps a scrape's size independent of
 * how many domains are probed.
 */
import table from './data/mx-providers.json' with { type: 'json' };

/** The label of hosts no provider in the table owns. */
export const OTHER_PROVIDER = 'other';

const SUFFIXES: ReadonlyArray<readonly [suffix: string, provider: string]> = Object.entries(table.providers)
  .flatMap(([provider, suffixes]) => suffixes.map((suffix) => [suffix, provider] as const))
  // Longest first, so a more specific suffix wins over a shorter one.
  .sort((x, y) => y[0].length - x[0].length);

/** The recognised provider of `mxHost` (any case, trailing dot or not), or `other`. */
export function mxProvider(mxHost: string | null | undefined): string {
  if (mxHost === null || mxHost === undefined) return OTHER_PROVIDER;
  const host = mxHost.toLowerCase().replace(/\.$/, '');
  for (const [suffix, provider] of SUFFIXES) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
  }
  return OTHER_PROVIDER;
}
