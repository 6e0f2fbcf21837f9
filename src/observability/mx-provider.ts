/**
 * The provider behind an MX host, for the SMTP metrics' `provider` label: the id of a provider in
 * the verification table (`src/verification/data/mailbox-providers.json`, the one the result's
 * evidence uses), else `other`. A bounded label keeps a scrape's size independent of how many
 * domains are probed.
 */
import { providerOfHost } from '../verification/checks/mailbox-provider.ts';

/** The label of hosts no provider in the table owns. */
export const OTHER_PROVIDER = 'other';

/** The recognised provider of `mxHost` (any case, trailing dot or not), or `other`. */
export function mxProvider(mxHost: string | null | undefined): string {
  return providerOfHost(mxHost)?.id ?? OTHER_PROVIDER;
}
