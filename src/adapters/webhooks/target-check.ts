/**
 * The lists' WebhookTargetCheck on the sender's own rule: the URL's host, an IP literal or the
 * addresses the system resolver gives its name, must have an address the sender would connect to.
 * A name that does not resolve now (or not in time) is accepted: deliveries resolve and check it
 * again every time, and a receiver's name may be published after its list is made.
 */
import type { WebhookTargetCheck } from '../../lists/ports.ts';
import { probeRefusal } from '../../net/address-guard.ts';
import {
  literalAddress,
  type ResolvedAddress,
  type ResolveHost,
  receiverHost,
  systemResolve,
  usableAddress,
} from './receiver-address.ts';

/** How long a list's creation waits for the lookup, by default, ms. */
export const TARGET_LOOKUP_TIMEOUT_MS = 5000;

export interface ResolvingTargetCheckOptions {
  /** Private and loopback receivers are allowed (MAILVET_WEBHOOK_ALLOW_PRIVATE): nothing is looked up. */
  allowPrivate: boolean;
  /** `dns.lookup` (all addresses) by default, as deliveries resolve. */
  resolve?: ResolveHost;
  /** Past this the URL is accepted unchecked, ms. */
  timeoutMs?: number;
}

/** Refuses a webhook URL whose host is, or resolves only to, addresses the sender refuses. */
export class ResolvingWebhookTargetCheck implements WebhookTargetCheck {
  readonly #options: ResolvingTargetCheckOptions;

  constructor(options: ResolvingTargetCheckOptions) {
    this.#options = options;
  }

  async refusal(url: string): Promise<string | null> {
    if (this.#options.allowPrivate) return null;
    let host: string;
    try {
      host = receiverHost(new URL(url));
    } catch {
      // Not a URL: the syntax check refuses it with its own message.
      return null;
    }
    const addresses = literalAddress(host) ?? (await this.#lookup(host));
    if (addresses.length === 0 || usableAddress(addresses, false) !== undefined) return null;
    const kinds = [...new Set(addresses.map((a) => probeRefusal(a.address)))].join(', ');
    return `${kinds} (${host})`;
  }

  /** The name's addresses; none when it does not resolve now or not in time. */
  async #lookup(host: string): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<ResolvedAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), this.#options.timeoutMs ?? TARGET_LOOKUP_TIMEOUT_MS);
    });
    const answer = (this.#options.resolve ?? systemResolve)(host).catch(() => []);
    try {
      return await Promise.race([answer, expiry]);
    } finally {
      clearTimeout(timer);
    }
  }
}
