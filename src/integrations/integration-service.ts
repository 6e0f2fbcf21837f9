/**
 * Connecting email platforms to an account and acting through them. Credentials are
 * sealed before they reach the store and opened only to make a session; when the platform refuses
 * them (a revoked key), the integration is marked disconnected with the platform's reason, and
 * every later use says so instead of asking again.
 */
import { randomUUID } from 'node:crypto';
import { type AuditTrail, recordChange } from '../audit/audit-trail.ts';
import type { Initiator } from '../audit/ports.ts';
import type { CredentialVault } from './credentials.ts';
import {
  type Audience,
  CredentialInsufficient,
  type Integration,
  type IntegrationStore,
  type OpenedCredential,
  type Provider,
  ProviderAuthError,
  type ProviderName,
  type ProviderOAuth,
  type ProviderSession,
} from './ports.ts';

export interface IntegrationServiceDeps {
  store: IntegrationStore;
  vault: CredentialVault;
  /** The platforms that can be connected; adding one is a new adapter folder and an entry here. */
  providers: readonly Provider[];
  /** Records connections and disconnections made by someone (`by`). */
  audit?: AuditTrail;
  now?: () => Date;
}

/**
 * Why a connection was refused, for the owner: a platform not offered, a key of the wrong shape, or
 * one the platform refused.
 */
export class ConnectRefused extends Error {
  constructor(
    readonly field: 'provider' | 'api_key',
    message: string,
  ) {
    super(message);
    this.name = 'ConnectRefused';
  }
}

/** The integration cannot act: the platform refused its credentials earlier. */
export class IntegrationDisconnected extends Error {
  constructor(readonly integration: Integration) {
    super(integration.message ?? 'The integration is disconnected: connect it again');
    this.name = 'IntegrationDisconnected';
  }
}

export class IntegrationService {
  readonly #deps: IntegrationServiceDeps;
  readonly #providers: ReadonlyMap<ProviderName, Provider>;

  constructor(deps: IntegrationServiceDeps) {
    this.#deps = deps;
    this.#providers = new Map(deps.providers.map((provider) => [provider.name, provider]));
  }

  /** The platform of that name; undefined when it is not offered. */
  provider(name: ProviderName): Provider | undefined {
    return this.#providers.get(name);
  }

  /** How the platform of a stored integration is named to people. */
  labelOf(name: ProviderName): string {
    return this.#providers.get(name)?.label ?? name;
  }

  #offered(name: ProviderName): Provider {
    const provider = this.#providers.get(name);
    // Worded as the API words any other value outside its list.
    if (provider === undefined)
      throw new ConnectRefused('provider', `Must be one of: ${[...this.#providers.keys()].join(', ')}`);
    return provider;
  }

  /** Connects with an API key: its shape, then the platform's own answer, decide. */
  async connectWithApiKey(
    accountId: string,
    providerName: ProviderName,
    apiKey: string,
    by?: Initiator,
  ): Promise<Integration> {
    const provider = this.#offered(providerName);
    const dc = provider.apiKeyDc(apiKey.trim());
    if (dc === null)
      throw new ConnectRefused('api_key', `Not a ${provider.label} API key: ${provider.apiKeyShape}`);
    return this.#connect(accountId, provider, { kind: 'api_key', secret: apiKey.trim(), dc }, by);
  }

  /** Connects with an OAuth access token and the data centre the platform named for it. */
  connectWithOAuth(
    accountId: string,
    providerName: ProviderName,
    accessToken: string,
    dc: string,
    by?: Initiator,
  ): Promise<Integration> {
    return this.#connect(
      accountId,
      this.#offered(providerName),
      { kind: 'oauth', secret: accessToken, dc },
      by,
    );
  }

  async #connect(
    accountId: string,
    provider: Provider,
    credential: OpenedCredential,
    by: Initiator | undefined,
  ): Promise<Integration> {
    const id = `int_${randomUUID().replaceAll('-', '')}`;
    let account: Awaited<ReturnType<ProviderSession['account']>>;
    try {
      account = await provider.session(credential, `${provider.name}:${credential.dc}:${id}`).account();
    } catch (error) {
      if (error instanceof CredentialInsufficient) throw new ConnectRefused('api_key', error.message);
      if (error instanceof ProviderAuthError) {
        const { label } = provider;
        throw new ConnectRefused(
          'api_key',
          `${label} refused this key: check it, or make a new one in ${label}`,
        );
      }
      throw error;
    }
    const integration = await this.#deps.store.createIntegration({
      id,
      accountId,
      provider: provider.name,
      accountName: account.name,
      providerAccountId: account.id,
      dc: account.dc,
      state: 'connected',
      message: null,
      authKind: credential.kind,
      sealedCredential: this.#deps.vault.seal(JSON.stringify(credential), id),
      createdAt: (this.#deps.now?.() ?? new Date()).toISOString(),
    });
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'integration.connected',
      targetId: integration.id,
      details: { ...describe(integration), with: credential.kind },
    });
    return integration;
  }

  /** The platforms whose OAuth flow the operator configured. */
  withOAuth(): Array<Provider & { oauth: ProviderOAuth }> {
    return [...this.#providers.values()].filter(
      (provider): provider is Provider & { oauth: ProviderOAuth } => provider.oauth !== undefined,
    );
  }

  /** The provider's OAuth flow, when the operator configured one. */
  oauthOf(providerName: ProviderName): ProviderOAuth | undefined {
    return this.#providers.get(providerName)?.oauth;
  }

  list(accountId: string): Promise<Integration[]> {
    return this.#deps.store.listIntegrations(accountId);
  }

  get(accountId: string, id: string): Promise<Integration | null> {
    return this.#deps.store.findIntegration(accountId, id);
  }

  /** Disconnects: the row and its sealed credential are deleted. */
  async disconnect(accountId: string, id: string, by?: Initiator): Promise<boolean> {
    const integration = by === undefined ? null : await this.get(accountId, id);
    if (!(await this.#deps.store.deleteIntegration(accountId, id))) return false;
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'integration.disconnected',
      targetId: id,
      details: integration === null ? {} : describe(integration),
    });
    return true;
  }

  /** The platform's audiences; null when the account has no such integration. */
  async audiences(accountId: string, id: string): Promise<Audience[] | null> {
    const integration = await this.get(accountId, id);
    if (integration === null) return null;
    return this.withSession(integration, (session) => session.audiences());
  }

  /** Runs `work` with a session of a connected integration; a refusal of its credentials disconnects it. */
  async withSession<T>(integration: Integration, work: (session: ProviderSession) => Promise<T>): Promise<T> {
    if (integration.state !== 'connected') throw new IntegrationDisconnected(integration);
    const credential = JSON.parse(
      this.#deps.vault.open(integration.sealedCredential, integration.id),
    ) as OpenedCredential;
    const provider = this.#providers.get(integration.provider);
    if (provider === undefined) {
      const message = `${integration.provider} is not offered here any more`;
      throw new IntegrationDisconnected({ ...integration, state: 'disconnected', message });
    }
    const session = provider.session(
      credential,
      `${provider.name}:${integration.dc}:${integration.providerAccountId}`,
    );
    try {
      return await work(session);
    } catch (error) {
      if (!(error instanceof ProviderAuthError)) throw error;
      const message = `${error.message.replace(/[.\s]+$/, '')}. Connect the account again.`;
      await this.#deps.store.markDisconnected(integration.accountId, integration.id, message);
      throw new IntegrationDisconnected({ ...integration, state: 'disconnected', message });
    }
  }
}

/** What the audit log says of an integration: it is gone by the time someone reads of its removal. */
function describe(integration: Integration) {
  return { provider: integration.provider, account_name: integration.accountName };
}
