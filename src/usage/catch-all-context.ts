/**
 * Gathers what the catch-all model reads for one account and lays its assessment on a result.
 * The shared result cache is every account's, while peers and feedback are one account's own, so
 * this runs after the cache, per account. The context of a domain (posture, peers, feedback
 * counts) is kept a few seconds per account and list: a list of 10,000 rows at one catch-all
 * domain reads its peers once, not 10,000 times.
 */
import { LRUCache } from 'lru-cache';
import { isBounced } from '../feedback/bounced.ts';
import { feedbackAddressOf } from '../feedback/feedback-address.ts';
import type { DomainFeedbackStats, FeedbackStore } from '../feedback/ports.ts';
import type { ListPeer } from '../lists/ports.ts';
import { isCatchAllVerdict, withCatchAllAssessment } from '../verification/catch-all/apply.ts';
import { assessCatchAll, MAX_PEERS } from '../verification/catch-all/assess.ts';
import type { CatchAllInput, DomainFeedback, MailPosture, Peer } from '../verification/catch-all/types.ts';
import { normalizeAddress } from '../verification/checks/normalize.ts';
import type { VerificationResult } from '../verification/report.ts';

/** Where the verification came from: a list run names its list, whose addresses are the peers. */
export interface CatchAllScope {
  listId?: string;
}

/** What the verification service asks: the result with this account's catch-all assessment. */
export interface CatchAllAssessor {
  assess(accountId: string, result: VerificationResult, scope: CatchAllScope): Promise<VerificationResult>;
}

export interface CatchAllContextDeps {
  /** The domain's SPF and DMARC (cached by the caller's port); null when not known. */
  postureOf(domain: string): Promise<MailPosture | null>;
  /** A list's other addresses at a domain. */
  listPeers(listId: string, domain: string, limit: number): Promise<ListPeer[]>;
  feedback: Pick<FeedbackStore, 'domainStats' | 'deliveredAtDomain' | 'outcomeOf'>;
  /** How long a domain's context is reused, ms (default 30 s). */
  contextTtlMs?: number;
  /** Most contexts kept (default 10,000). */
  maxContexts?: number;
}

/** What is read once per account, scope and domain. */
interface DomainContext {
  posture: MailPosture | null;
  peers: Peer[];
  stats: DomainFeedbackStats;
}

/** Builds the model's input from the account's peers, feedback and the domain's posture. */
export class CatchAllContext implements CatchAllAssessor {
  readonly #deps: CatchAllContextDeps;
  #made: LRUCache<string, Promise<DomainContext>> | undefined;

  constructor(deps: CatchAllContextDeps) {
    this.#deps = deps;
  }

  // Made at first use: lru-cache allocates its arrays for every entry up front.
  get #contexts(): LRUCache<string, Promise<DomainContext>> {
    this.#made ??= new LRUCache({
      max: this.#deps.maxContexts ?? 10_000,
      ttl: this.#deps.contextTtlMs ?? 30_000,
    });
    return this.#made;
  }

  async assess(
    accountId: string,
    result: VerificationResult,
    scope: CatchAllScope,
  ): Promise<VerificationResult> {
    if (!isCatchAllVerdict(result)) return result;
    const normalized = normalizeAddress(result.email);
    const domain = normalized.asciiDomain?.toLowerCase();
    if (domain === undefined || domain === '') return result;
    const context = await this.#contextOf(accountId, scope.listId, domain);
    const input: CatchAllInput = {
      localPart: normalized.localPart,
      domain,
      provider: result.evidence.provider && {
        id: result.evidence.provider.id,
        kind: result.evidence.provider.kind,
      },
      posture: context.posture,
      peers: context.peers,
      feedback: await this.#feedbackWithout(accountId, result.email, context.stats),
    };
    return withCatchAllAssessment(result, assessCatchAll(input));
  }

  /** Forgets what was read for the account at `domain` (an erasure there): read afresh next time. */
  forget(accountId: string, domain: string): void {
    for (const key of this.#contexts.keys()) {
      if (key.startsWith(`${accountId}\n`) && key.endsWith(`\n${domain}`)) this.#contexts.delete(key);
    }
  }

  #contextOf(accountId: string, listId: string | undefined, domain: string): Promise<DomainContext> {
    const key = `${accountId}\n${listId ?? ''}\n${domain}`;
    const known = this.#contexts.get(key);
    if (known !== undefined) return known;
    const reading = this.#readContext(accountId, listId, domain);
    this.#contexts.set(key, reading);
    // A failed read is not kept: the next address asks again.
    reading.catch(() => this.#contexts.delete(key));
    return reading;
  }

  async #readContext(accountId: string, listId: string | undefined, domain: string): Promise<DomainContext> {
    const { feedback } = this.#deps;
    const [posture, peers, stats] = await Promise.all([
      this.#deps.postureOf(domain),
      listId === undefined
        ? feedback
            .deliveredAtDomain(accountId, domain, MAX_PEERS)
            .then((addresses) =>
              addresses.map((address) => ({ localPart: localPartOf(address), confirmed: true })),
            )
        : this.#deps.listPeers(listId, domain, MAX_PEERS),
      feedback.domainStats(accountId, domain),
    ]);
    return { posture, peers, stats };
  }

  /** The domain's counts without the assessed address's own events (the model wants the others'). */
  async #feedbackWithout(
    accountId: string,
    email: string,
    stats: DomainFeedbackStats,
  ): Promise<DomainFeedback | null> {
    if (stats.addresses === 0) return null;
    let hardBounces = stats.bounced;
    let delivered = stats.byEvent.delivered;
    const identity = feedbackAddressOf(email);
    if (identity !== null) {
      const own = await this.#deps.feedback.outcomeOf(accountId, identity.address);
      if (isBounced(own)) hardBounces -= 1;
      if (own.delivered !== null) delivered -= 1;
    }
    return { hardBounces: Math.max(0, hardBounces), delivered: Math.max(0, delivered) };
  }
}

function localPartOf(address: string): string {
  return address.slice(0, address.lastIndexOf('@'));
}
