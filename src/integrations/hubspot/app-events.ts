/**
 * The events HubSpot sends to the app's one URL (`MAILVET_PUBLIC_URL/hooks/hubspot`): a JSON array
 * signed with X-HubSpot-Signature-v3 under the app's client secret. A request not signed so, or
 * signed more than 5 minutes ago, does nothing. Each event names a portal and a contact id:
 * - `contact.creation`: a hint for the watches of that portal's OAuth integrations (`app-events`);
 *   each reads the contact back from HubSpot before it is verified and written back, so a replay
 *   or a made-up id does nothing more (the watch's claim keeps a contact to one verification a day);
 * - `contact.privacyDeletion`: the contact is already gone from HubSpot, so its address is what
 *   Mailvet kept beside its id (the runs' list rows, the watches' members) in each account with an
 *   integration on that portal; each is erased (ErasureService, audited as done by the platform).
 *   Erasing twice erases nothing more, so a replay is harmless.
 */
import type { Initiator } from '../../audit/ports.ts';
import type { Integration, IntegrationStore } from '../ports.ts';
import { platformActor } from '../watch-deletions.ts';
import type { WatchService } from '../watches.ts';
import { APP_EVENTS } from './provider.ts';
import { type AppEvent, appEvents, type SignedRequest, signedByHubSpot } from './signature.ts';

export interface HubSpotAppEventsDeps {
  /** MAILVET_HUBSPOT_CLIENT_SECRET: HubSpot signs the app's events with it. */
  clientSecret: string;
  store: Pick<
    IntegrationStore,
    'integrationsOnPlatformAccount' | 'listWatches' | 'addressesOfMember' | 'forgetWatchMember'
  >;
  watches: Pick<WatchService, 'acceptMember'>;
  /** Erases an address from the account's data (`ErasureService.eraseAddress`), audited as `by`'s. */
  erase: (accountId: string, email: string, by: Initiator) => Promise<unknown>;
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
  now?: () => number;
}

export class HubSpotAppEvents {
  readonly #deps: HubSpotAppEventsDeps;

  constructor(deps: HubSpotAppEventsDeps) {
    this.#deps = deps;
  }

  /**
   * Acts on a signed request's events; false (nothing done) when HubSpot did not sign it within the
   * last 5 minutes. Creations are queued; erasures are done before this returns, so a failure is
   * HubSpot's to retry.
   */
  async receive(request: SignedRequest): Promise<boolean> {
    if (!signedByHubSpot(request, this.#deps.clientSecret, this.#deps.now?.())) return false;
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return true;
    }
    for (const event of appEvents(body)) {
      const integrations = await this.#deps.store.integrationsOnPlatformAccount(
        'hubspot',
        String(event.portalId),
      );
      if (event.subscriptionType === 'contact.privacyDeletion') await this.#erase(event, integrations);
      else await this.#created(event, integrations);
    }
    return true;
  }

  async #created(event: AppEvent, integrations: Integration[]): Promise<void> {
    for (const integration of integrations) {
      if (integration.state !== 'connected') continue;
      const watches = await this.#deps.store.listWatches(integration.accountId, integration.id);
      for (const watch of watches) {
        if (watch.webhookId !== APP_EVENTS) continue;
        if (!this.#deps.watches.acceptMember(watch, String(event.objectId)))
          this.#deps.log('warn', 'a new HubSpot contact was not verified: too many events at once', {
            watchId: watch.id,
          });
      }
    }
  }

  async #erase(event: AppEvent, integrations: Integration[]): Promise<void> {
    const contactId = String(event.objectId);
    for (const integration of integrations) {
      const addresses = await this.#deps.store.addressesOfMember(integration.id, contactId);
      const by = platformActor('HubSpot', integration);
      for (const address of addresses) await this.#deps.erase(integration.accountId, address, by);
      await this.#deps.store.forgetWatchMember(integration.id, contactId);
      if (addresses.length > 0)
        this.#deps.log('info', 'a contact deleted for privacy in HubSpot was erased', {
          integrationId: integration.id,
        });
    }
  }
}
