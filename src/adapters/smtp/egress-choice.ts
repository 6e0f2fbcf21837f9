/**
 * Which egress a probed domain's sessions use when there are several proxies: always the same one
 * (a mail server sees one source address per domain, so its reputation and greylisting memory of
 * us stay whole), chosen by rendezvous hashing (highest random weight): each (egress, domain) pair
 * gets a stable pseudo-random weight and the heaviest egress wins, so removing a proxy moves only
 * the domains it had, and adding one takes an even share from every other.
 */
import { createHash } from 'node:crypto';
import type { Dialer } from './dialer.ts';

/** Picks one dialer per probed domain, sticky for as long as the list of dialers is the same. */
export class EgressChoice {
  readonly #dialers: readonly Dialer[];

  /** `dialers` must not be empty. */
  constructor(dialers: readonly Dialer[]) {
    if (dialers.length === 0) throw new Error('EgressChoice needs at least one dialer');
    this.#dialers = dialers;
  }

  /** The dialer of `domain` (an ASCII domain; case does not matter). */
  for(domain: string): Dialer {
    const [first, ...others] = this.#dialers as [Dialer, ...Dialer[]];
    if (others.length === 0) return first;
    const name = domain.toLowerCase();
    let best = first;
    let bestWeight = weight(first.id, name);
    for (const dialer of others) {
      const candidate = weight(dialer.id, name);
      if (candidate > bestWeight) {
        best = dialer;
        bestWeight = candidate;
      }
    }
    return best;
  }
}

/** A stable weight of the pair, the same in every process and after every restart. */
function weight(egressId: string, domain: string): bigint {
  return createHash('sha256').update(egressId).update('\n').update(domain).digest().readBigUInt64BE(0);
}
