/**
 * The mail provider behind a domain, recognised from its MX host names with the table in
 * `data/mailbox-providers.json` (read its comment for the matching rules). A mailbox host's RCPT
 * answer is about its own mailbox store; a security gateway in front of an organisation's servers
 * often accepts any recipient, so knowing which one answered tells how much its 250 is worth.
 */
import table from '../data/mailbox-providers.json' with { type: 'json' };
import type { MailboxProvider, MailboxProviderKind, MxRecord } from '../report.ts';
import { DomainMemo } from './domain-memo.ts';

/** One entry of the provider table, as the data file holds it. */
export interface MailboxProviderEntry extends MailboxProvider {
  mxSuffixes: readonly string[];
}

const KINDS: Record<MailboxProviderKind, true> = { mailbox_host: true, security_gateway: true };

/** Every provider of the table, in its order. */
export const MAILBOX_PROVIDERS: readonly MailboxProviderEntry[] = table.providers.map((entry) =>
  Object.freeze({
    id: entry.id,
    name: entry.name,
    kind: entry.kind as MailboxProviderKind,
    mxSuffixes: Object.freeze([...entry.mx_suffixes]),
  }),
);

/** Whether `kind` is one the table may use. */
export function isProviderKind(kind: string): kind is MailboxProviderKind {
  return Object.hasOwn(KINDS, kind);
}

interface SuffixRule {
  /** The suffix's labels, right to left; `*` matches any one label. */
  labels: readonly string[];
  provider: MailboxProvider;
}

const RULES: readonly SuffixRule[] = MAILBOX_PROVIDERS.flatMap(({ mxSuffixes, ...fields }) => {
  const provider = Object.freeze(fields);
  return mxSuffixes.map((suffix) => ({ labels: suffix.toLowerCase().split('.').reverse(), provider }));
})
  // Most labels first, so a more specific suffix wins over a shorter one.
  .sort((x, y) => y.labels.length - x.labels.length);

/** The provider running `mxHost` (any case, trailing dot or not), or null when none is recognised. */
export function providerOfHost(mxHost: string | null | undefined): MailboxProvider | null {
  if (typeof mxHost !== 'string' || mxHost.length === 0 || mxHost.length > 255) return null;
  // Every result's evidence asks, mostly for the same few hosts: the rules run once a host.
  return providers.get(mxHost, matchRules);
}

const providers = new DomainMemo<MailboxProvider | null>();

function matchRules(mxHost: string): MailboxProvider | null {
  const labels = mxHost.toLowerCase().replace(/\.$/, '').split('.').reverse();
  for (const rule of RULES) {
    if (rule.labels.length > labels.length) continue;
    const matches = rule.labels.every((label, i) =>
      label === '*' ? (labels[i] ?? '') !== '' : label === labels[i],
    );
    if (matches) return rule.provider;
  }
  return null;
}

/** The provider of the first MX host (in preference order) that one is recognised for, else null. */
export function providerOfMxHosts(mxHosts: readonly MxRecord[]): MailboxProvider | null {
  for (const mx of mxHosts) {
    const provider = providerOfHost(mx.exchange);
    if (provider !== null) return provider;
  }
  return null;
}
