/**
 * Wires the catch-all confidence: the domain's posture through the configured resolver (cached an
 * hour per domain), a list's peers from the list store, the account's feedback from its store.
 */
import type { Config } from '../config.ts';
import { NO_FEEDBACK } from '../feedback/no-feedback.ts';
import type { FeedbackStore } from '../feedback/ports.ts';
import type { ListPeer, ListStore } from '../lists/ports.ts';
import { CatchAllContext } from '../usage/catch-all-context.ts';
import { MailPostureCache } from '../usage/mail-posture-cache.ts';
import { normalizeAddress } from '../verification/checks/normalize.ts';
import { configuredResolver } from './dns.ts';

/** The per-account catch-all assessor of this configuration. */
export function createCatchAllAssessor(
  config: Config,
  stores: { lists: Pick<ListStore, 'peersAtDomain'>; feedback: FeedbackStore },
): CatchAllContext {
  const postures = new MailPostureCache(configuredResolver(config));
  return new CatchAllContext({
    postureOf: (domain) => postures.postureOf(domain),
    listPeers: (listId, domain, limit) => stores.lists.peersAtDomain(listId, domain, limit),
    feedback: stores.feedback,
  });
}

/**
 * The assessor of `mailvet verify`, which has no account: no feedback, and the other addresses
 * given in the same command as the peers (as a list's other rows are).
 */
export function createLocalCatchAllAssessor(config: Config, addresses: readonly string[]): CatchAllContext {
  const postures = new MailPostureCache(configuredResolver(config));
  const peersByDomain = new Map<string, ListPeer[]>();
  for (const address of addresses) {
    const { localPart, asciiDomain } = normalizeAddress(address);
    const domain = asciiDomain?.toLowerCase();
    if (domain === undefined || domain === '' || localPart === '') continue;
    const peers = peersByDomain.get(domain) ?? [];
    peers.push({ localPart, confirmed: false });
    peersByDomain.set(domain, peers);
  }
  return new CatchAllContext({
    postureOf: (domain) => postures.postureOf(domain),
    listPeers: async (_command, domain, limit) => (peersByDomain.get(domain) ?? []).slice(0, limit),
    feedback: NO_FEEDBACK,
  });
}
