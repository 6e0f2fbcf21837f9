/**
 * A contact deleted from a watched audience: its address erased from the account's data. The
 * platform's event is only a hint (anyone who learnt the hook's URL could post one), so the address
 * is erased only when this integration's runs or watches met it (the platform answers "no such
 * contact" for an address it never had, too) and the platform, read back, no longer has it or has
 * it archived; a contact it still has stays, and so does everything Mailvet holds of it.
 */
import type { Initiator } from '../audit/ports.ts';
import { addressKey, domainOfKey } from '../usage/verification-service.ts';
import type { IntegrationService } from './integration-service.ts';
import type { Integration, IntegrationStore, Watch } from './ports.ts';

export interface WatchDeletionDeps {
  integrations: Pick<IntegrationService, 'get' | 'withSession' | 'provider'>;
  store: Pick<IntegrationStore, 'knowsAddress'>;
  /** Erases the address from the account's data, recorded as done by `by`; returns what it erased. */
  erase: (accountId: string, email: string, by: Initiator) => Promise<unknown>;
  log: (level: 'info', message: string, fields?: Record<string, unknown>) => void;
}

/** Erases `email` from the watch's account once the platform confirms the contact is gone. */
export async function eraseDeletedContact(
  deps: WatchDeletionDeps,
  watch: Watch,
  email: string,
): Promise<void> {
  const integration = await deps.integrations.get(watch.accountId, watch.integrationId);
  if (integration === null || integration.state !== 'connected') return;
  const key = addressKey(email);
  if (!(await deps.store.knowsAddress(integration.id, { addressKey: key, domain: domainOfKey(key) }))) return;
  const member = await deps.integrations.withSession(integration, (session) =>
    session.member(watch.audienceId, email),
  );
  if (member !== null && member.status !== 'archived') return;
  const erased = await deps.erase(
    watch.accountId,
    member?.email ?? email,
    platformActor(
      deps.integrations.provider(integration.provider)?.label ?? integration.provider,
      integration,
    ),
  );
  // Counts only: the address never goes to the log.
  deps.log('info', 'a contact deleted on the platform was erased', { watchId: watch.id, erased });
}

/** Who acts on a platform's word: the integration, named as its owner knows it (`Mailchimp (Shop)`). */
export function platformActor(platformLabel: string, integration: Integration): Initiator {
  return {
    actor: { type: 'platform', id: integration.id, label: `${platformLabel} (${integration.accountName})` },
    ip: null,
  };
}
