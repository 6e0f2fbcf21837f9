/**
 * The composition of integrations, beside `index.ts`: the providers with their
 * client settings from configuration, the in-flight limiter, and the credential vault.
 */

import type { Plan } from '../accounts/plans.ts';
import { MemoryInFlightLimiter } from '../adapters/integrations/memory-in-flight.ts';
import { guardedFetch, isLocalTarget } from '../adapters/net/guarded-fetch.ts';
import { MemoryRequestWindow } from '../adapters/request-window/memory.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { Config } from '../config.ts';
import { CampaignCheckService } from '../integrations/campaign-check.ts';
import { CredentialVault } from '../integrations/credentials.ts';
import { HubSpotAppEvents } from '../integrations/hubspot/app-events.ts';
import { HubSpotProvider } from '../integrations/hubspot/provider.ts';
import { IntegrationService } from '../integrations/integration-service.ts';
import { MailchimpProvider } from '../integrations/mailchimp/provider.ts';
import type { InFlightLimiter, IntegrationStore, Provider, RequestWindow } from '../integrations/ports.ts';
import { WatchService } from '../integrations/watches.ts';
import type { ErasureService } from '../privacy/erasure.ts';
import type { Store } from '../store.ts';
import { meterFor } from '../usage/meter.ts';
import type { VerificationService } from '../usage/verification-service.ts';
import { isRefundable } from '../verification/refund.ts';
import type { Status } from '../verification/report.ts';
import type { Logger } from './logger.ts';

/** One address verified on an account's quota. */
export interface AccountVerification {
  status: Status;
  score: number;
  /** Our own resolver failed (the unit was given back): the status says nothing about the address. */
  ourFailure: boolean;
}

/** What verifying on an account's quota needs. */
export interface AccountVerifierDeps {
  store: Pick<Store, 'findAccount' | 'dashboardKey'>;
  service: Pick<VerificationService, 'verifyOne'>;
  plans: Readonly<Record<string, Plan>>;
}

/**
 * Verifies one address on the account's quota, as its own use (like the dashboard's: metered
 * through its dashboard key); null when the quota is used up or the account is gone.
 */
export function accountVerifier(
  deps: AccountVerifierDeps,
): (accountId: string, email: string) => Promise<AccountVerification | null> {
  return async (accountId, email) => {
    const account = await deps.store.findAccount(accountId);
    if (account === null) return null;
    const meter = meterFor(deps.plans, account, await deps.store.dashboardKey(accountId));
    const outcome = await deps.service.verifyOne(meter, email);
    if (outcome.kind !== 'ok') return null;
    const { status, score } = outcome.result;
    return { status, score, ourFailure: isRefundable(outcome.result) };
  };
}

/** The pre-campaign check, verifying on the account's quota, each integration's last check kept in the store. */
export function createCampaignChecks(
  deps: AccountVerifierDeps & {
    store: Pick<Store, 'integrations'>;
    integrations: IntegrationService;
    now?: () => Date;
  },
): CampaignCheckService {
  return new CampaignCheckService({
    integrations: deps.integrations,
    store: deps.store.integrations,
    verify: accountVerifier(deps),
    ...(deps.now && { now: deps.now }),
  });
}

/** The watches of integrations: verification on the account's quota, the hook URL at the public origin. */
export function createWatches(deps: {
  integrations: IntegrationService;
  store: Pick<Store, 'integrations' | 'findAccount' | 'dashboardKey'>;
  service: Pick<VerificationService, 'verifyOne'>;
  plans: Readonly<Record<string, Plan>>;
  publicOrigin: string;
  log: Logger;
  now?: () => Date;
  audit?: AuditTrail;
  /** Erases a contact the platform deleted from a watched audience. */
  erasure?: Pick<ErasureService, 'eraseAddress'>;
}): WatchService {
  const erasure = deps.erasure;
  return new WatchService({
    integrations: deps.integrations,
    store: deps.store.integrations,
    verify: accountVerifier(deps),
    hookUrl: (provider, token) => `${deps.publicOrigin}/hooks/${provider}/${token}`,
    log: (level, message, fields) => deps.log[level](fields ?? {}, message),
    ...(deps.now && { now: deps.now }),
    ...(deps.audit && { audit: deps.audit }),
    ...(erasure && { erase: (accountId, email, by) => erasure.eraseAddress(accountId, email, by) }),
  });
}

/** The integrations service for this configuration. */
export function createIntegrations(
  config: Pick<Config, 'MAILVET_MAILCHIMP_BASE_URL'> &
    Partial<
      Pick<
        Config,
        | 'MAILVET_MAILCHIMP_LOGIN_URL'
        | 'MAILVET_MAILCHIMP_CLIENT_ID'
        | 'MAILVET_MAILCHIMP_CLIENT_SECRET'
        | 'MAILVET_HUBSPOT_BASE_URL'
        | 'MAILVET_HUBSPOT_LOGIN_URL'
        | 'MAILVET_HUBSPOT_CLIENT_ID'
        | 'MAILVET_HUBSPOT_CLIENT_SECRET'
        | 'MAILVET_HUBSPOT_REQUESTS_PER_10S'
      >
    >,
  store: IntegrationStore,
  secretKey: Buffer,
  options: {
    inFlight?: InFlightLimiter;
    /** HubSpot's rolling window per portal; Redis's in scale-out. */
    requestWindow?: RequestWindow;
    now?: () => Date;
    moreProviders?: readonly Provider[];
    audit?: AuditTrail;
  } = {},
): IntegrationService {
  const { now } = options;
  const base = config.MAILVET_MAILCHIMP_BASE_URL;
  const login = config.MAILVET_MAILCHIMP_LOGIN_URL ?? 'https://login.mailchimp.com';
  const clientId = config.MAILVET_MAILCHIMP_CLIENT_ID;
  const clientSecret = config.MAILVET_MAILCHIMP_CLIENT_SECRET;
  const inFlight = options.inFlight ?? new MemoryInFlightLimiter();
  const mailchimp = new MailchimpProvider({
    ...(clientId !== undefined &&
      clientSecret !== undefined && { oauth: { loginUrl: login, clientId, clientSecret } }),
    baseUrlTemplate: base,
    // Scale-out: shared through Redis, so all processes together keep to Mailchimp's 10.
    limiter: inFlight,
    // Private addresses only when the operator pointed the API at one (the emulator, a local proxy).
    fetch: guardedFetch({ allowPrivate: isLocalTarget(base.replace('{dc}', 'us1')) }),
    oauthFetch: guardedFetch({ allowPrivate: isLocalTarget(login) }),
  });
  const hubspotBase = config.MAILVET_HUBSPOT_BASE_URL ?? 'https://api.hubapi.com';
  const hubspotId = config.MAILVET_HUBSPOT_CLIENT_ID;
  const hubspotSecret = config.MAILVET_HUBSPOT_CLIENT_SECRET;
  const hubspot = new HubSpotProvider({
    baseUrl: hubspotBase,
    inFlight,
    window: options.requestWindow ?? new MemoryRequestWindow(),
    perTenSeconds: config.MAILVET_HUBSPOT_REQUESTS_PER_10S ?? 100,
    fetch: guardedFetch({ allowPrivate: isLocalTarget(hubspotBase) }),
    ...(hubspotId !== undefined &&
      hubspotSecret !== undefined && {
        oauth: {
          loginUrl: config.MAILVET_HUBSPOT_LOGIN_URL ?? 'https://app.hubspot.com',
          clientId: hubspotId,
          clientSecret: hubspotSecret,
        },
      }),
  });
  return new IntegrationService({
    store,
    vault: new CredentialVault(secretKey),
    // Another platform: its adapter folder under src/integrations/, and its entry here.
    providers: [mailchimp, hubspot, ...(options.moreProviders ?? [])],
    ...(now && { now }),
    ...(options.audit && { audit: options.audit }),
  });
}

/** HubSpot's app events at `/hooks/hubspot`, when the operator configured the app (its secret signs them). */
export function createHubSpotHooks(
  config: Partial<Pick<Config, 'MAILVET_HUBSPOT_CLIENT_ID' | 'MAILVET_HUBSPOT_CLIENT_SECRET'>>,
  deps: {
    store: IntegrationStore;
    watches: WatchService;
    erasure: Pick<ErasureService, 'eraseAddress'>;
    publicOrigin: string;
    log: Logger;
  },
): { events: HubSpotAppEvents; publicOrigin: string } | undefined {
  const secret = config.MAILVET_HUBSPOT_CLIENT_SECRET;
  if (config.MAILVET_HUBSPOT_CLIENT_ID === undefined || secret === undefined) return undefined;
  const events = new HubSpotAppEvents({
    clientSecret: secret,
    store: deps.store,
    watches: deps.watches,
    erase: (accountId, email, by) => deps.erasure.eraseAddress(accountId, email, by),
    log: (level, message, fields) => deps.log[level](fields ?? {}, message),
  });
  return { events, publicOrigin: deps.publicOrigin };
}
