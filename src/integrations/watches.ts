/**
 * Watches: new subscribers of an audience verified and written back as they arrive.
 * A watch registers a webhook for subscribe events at `/hooks/{provider}/{token}` (Mailchimp's:
 * `/hooks/mailchimp/{token}`), the token 32 random bytes of which only the SHA-256 is stored; the
 * provider reads its own platform's event bodies. An event is trusted for nothing but a hint:
 * the member is read back from the platform (a forged event about an address that is no
 * subscribed member does nothing), claimed once a day per watch (a replayed event is not verified
 * or charged again), verified on the account's quota and written back. A contact deleted from the
 * audience (where the platform tells it) has its address erased from the account's data, once the
 * platform confirms it no longer has the contact: a forged deletion of a contact it still has
 * erases nothing. The hook answers at once; the work runs after, in this process.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type AuditTrail, recordChange } from '../audit/audit-trail.ts';
import type { Initiator } from '../audit/ports.ts';
import { addressKey } from '../usage/verification-service.ts';
import type { Status } from '../verification/report.ts';
import type { IntegrationService } from './integration-service.ts';
import type { HookEvent, IntegrationStore, Member, ProviderName, Watch } from './ports.ts';
import { eraseDeletedContact } from './watch-deletions.ts';

/** A member verified through a watch is not verified through it again for this long. */
export const WATCH_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface WatchServiceDeps {
  integrations: Pick<IntegrationService, 'get' | 'withSession' | 'provider'>;
  store: IntegrationStore;
  /**
   * Verifies on the account's quota; null when the quota is used up. `ourFailure`: our own resolver
   * failed, so the result says nothing about the address and is not written.
   */
  verify: (
    accountId: string,
    email: string,
  ) => Promise<{ status: Status; score: number; ourFailure?: boolean } | null>;
  /** The hook URL of a provider's token (MAILVET_PUBLIC_URL's). */
  hookUrl: (provider: ProviderName, token: string) => string;
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
  /**
   * Erases an address from the account's data (`ErasureService.eraseAddress`), recorded as done by
   * `by`; without it deletions are ignored.
   */
  erase?: (accountId: string, email: string, by: Initiator) => Promise<unknown>;
  /** Records the watches someone (`by`) adds and removes. */
  audit?: AuditTrail;
  now?: () => Date;
}

/** Events worked on at once in this process, and waiting at most. */
const MAX_ACTIVE_EVENTS = 4;
const MAX_WAITING_EVENTS = 1000;

/** What a watch writes for a new subscriber: its fields and category tag. */
const WATCH_WRITES = { fields: true, tags: true, segments: false, unsubscribeInvalid: false } as const;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class WatchService {
  readonly #deps: WatchServiceDeps;
  readonly #running = new Set<Promise<void>>();
  readonly #waiting: Array<() => Promise<void>> = [];

  constructor(deps: WatchServiceDeps) {
    this.#deps = deps;
  }

  /** Watches an audience of the account's integration; null when there is no such integration. */
  async create(
    accountId: string,
    integrationId: string,
    audienceId: string,
    by?: Initiator,
  ): Promise<Watch | null> {
    const integration = await this.#deps.integrations.get(accountId, integrationId);
    if (integration === null) return null;
    const token = randomBytes(32).toString('base64url');
    const watch = await this.#deps.store.createWatch({
      id: `wch_${randomUUID().replaceAll('-', '')}`,
      accountId,
      integrationId,
      audienceId,
      tokenHash: hashToken(token),
      webhookId: null,
      createdAt: this.#now().toISOString(),
      // A polled watch (HubSpot private apps) looks for members created from now on.
      pollCursor: this.#now().toISOString(),
    });
    let webhookId: string;
    try {
      // The row exists first: the platform checks the URL with a GET before it accepts it.
      webhookId = await this.#deps.integrations.withSession(integration, async (session) => {
        // The merge fields a new subscriber's result goes into (and a check that the audience exists).
        await session.prepareWriteBack(audienceId, WATCH_WRITES);
        return session.watch(audienceId, this.#deps.hookUrl(integration.provider, token));
      });
      await this.#deps.store.setWatchWebhook(watch.id, webhookId);
    } catch (error) {
      await this.#deps.store.deleteWatch(watch.id);
      throw error;
    }
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'watch.created',
      targetId: watch.id,
      details: { integration_id: integrationId, audience_id: audienceId },
    });
    return { ...watch, webhookId };
  }

  /** The integration's watches; null when there is no such integration. */
  async list(accountId: string, integrationId: string): Promise<Watch[] | null> {
    if ((await this.#deps.integrations.get(accountId, integrationId)) === null) return null;
    return this.#deps.store.listWatches(accountId, integrationId);
  }

  /** Removes the watch and its webhook; false when there is no such watch. */
  async remove(accountId: string, integrationId: string, watchId: string, by?: Initiator): Promise<boolean> {
    const watch = await this.#deps.store.findWatch(accountId, integrationId, watchId);
    if (watch === null) return false;
    await this.#unwatch(watch);
    await this.#deps.store.deleteWatch(watch.id);
    await recordChange(this.#deps.audit, accountId, by, {
      action: 'watch.deleted',
      targetId: watch.id,
      details: { integration_id: integrationId, audience_id: watch.audienceId },
    });
    return true;
  }

  /** Removes every webhook of the integration's watches (before it is disconnected); never throws. */
  async removeAll(accountId: string, integrationId: string): Promise<void> {
    for (const watch of await this.#deps.store.listWatches(accountId, integrationId)) {
      await this.#unwatch(watch).catch((error: unknown) =>
        this.#deps.log('warn', 'a watch webhook could not be removed from the platform', { err: error }),
      );
    }
  }

  async #unwatch(watch: Watch): Promise<void> {
    const integration = await this.#deps.integrations.get(watch.accountId, watch.integrationId);
    // A disconnected integration cannot reach the platform: the webhook then fails on its own.
    if (integration === null || integration.state !== 'connected' || watch.webhookId === null) return;
    const webhookId = watch.webhookId;
    await this.#deps.integrations.withSession(integration, (session) =>
      session.unwatch(watch.audienceId, webhookId),
    );
  }

  /** Whether the token is a watch's on that provider (the platform's GET check). */
  async knows(provider: ProviderName, token: string): Promise<boolean> {
    return (await this.#watchOf(provider, token)) !== null;
  }

  /** The watch of a token, when its integration is on that provider. */
  async #watchOf(provider: ProviderName, token: string): Promise<Watch | null> {
    if (this.#deps.integrations.provider(provider) === undefined) return null;
    const watch = await this.#deps.store.findWatchByTokenHash(hashToken(token));
    if (watch === null) return null;
    const integration = await this.#deps.integrations.get(watch.accountId, watch.integrationId);
    return integration?.provider === provider ? watch : null;
  }

  /**
   * Takes a webhook call for the watch of `token` (its parsed body): false when the token is no
   * watch's on that provider. A subscribe or delete event of the watched audience is worked on
   * after this returns; anything else is ignored.
   */
  async receive(
    provider: ProviderName,
    token: string,
    body: Readonly<Record<string, unknown>>,
  ): Promise<boolean> {
    const watch = await this.#watchOf(provider, token);
    if (watch === null) return false;
    const event = this.#deps.integrations.provider(provider)?.hookEvent(body) ?? null;
    if (event === null || event.audienceId !== watch.audienceId) return true;
    // A burst (an import fires thousands of events) waits its turn, within a bound: past it the
    // event is dropped with a warning (a run of the audience checks those members).
    if (this.#waiting.length >= MAX_WAITING_EVENTS) {
      this.#deps.log('warn', 'a watched subscriber was not verified: too many events at once', {
        watchId: watch.id,
      });
      return true;
    }
    this.#waiting.push(() => this.#act(watch, event));
    this.#pump();
    return true;
  }

  #act(watch: Watch, event: HookEvent): Promise<void> {
    if (event.kind !== 'delete') return this.#process(watch, event.email);
    const erase = this.#deps.erase;
    if (erase === undefined) return Promise.resolve();
    return eraseDeletedContact({ ...this.#deps, erase }, watch, event.email);
  }

  /**
   * Takes a new member the platform named by its id (HubSpot's creation events): worked on after
   * this returns, as a subscribe event is; false when too many are waiting (it is dropped).
   */
  acceptMember(watch: Watch, memberId: string): boolean {
    if (this.#waiting.length >= MAX_WAITING_EVENTS) return false;
    this.#waiting.push(() => this.#process(watch, { memberId }));
    this.#pump();
    return true;
  }

  /** Verifies and writes back a member the platform listed as new (a polled watch's look), now. */
  verifyNewMember(watch: Watch, member: Member): Promise<void> {
    return this.#process(watch, { member });
  }

  /** Starts waiting events while fewer than MAX_ACTIVE_EVENTS are being worked on. */
  #pump(): void {
    while (this.#running.size < MAX_ACTIVE_EVENTS) {
      const next = this.#waiting.shift();
      if (next === undefined) return;
      const work: Promise<void> = next()
        .catch((error: unknown) =>
          this.#deps.log('warn', 'a watch event could not be acted on', { err: error }),
        )
        .finally(() => {
          this.#running.delete(work);
          this.#pump();
        });
      this.#running.add(work);
    }
  }

  /** Waits for the events being worked on and waiting (tests; a graceful stop). */
  async idle(): Promise<void> {
    while (this.#running.size > 0 || this.#waiting.length > 0) await Promise.allSettled([...this.#running]);
  }

  async #process(watch: Watch, hint: string | { memberId: string } | { member: Member }): Promise<void> {
    const integration = await this.#deps.integrations.get(watch.accountId, watch.integrationId);
    if (integration === null || integration.state !== 'connected') return;
    const member =
      typeof hint === 'object' && 'member' in hint
        ? hint.member
        : await this.#deps.integrations.withSession(integration, async (session) =>
            typeof hint === 'string'
              ? session.member(watch.audienceId, hint)
              : ((await session.memberById?.(watch.audienceId, hint.memberId)) ?? null),
          );
    // The event is only a hint: the platform's own record decides.
    if (member === null || member.status !== 'subscribed') return;
    const now = this.#now();
    const since = new Date(now.getTime() - WATCH_REPLAY_WINDOW_MS).toISOString();
    const at = now.toISOString();
    if (!(await this.#deps.store.claimWatchMember(watch.id, member.id, at, since))) return;
    // Unless its result is written, the claim is given back: a later event (or a replay once the
    // quota is back) verifies the member then, instead of a day later.
    let written = false;
    try {
      const verified = await this.#deps.verify(watch.accountId, member.email);
      if (verified === null) {
        this.#deps.log('info', 'a watched subscriber was not verified: the monthly quota is used up', {
          watchId: watch.id,
        });
        return;
      }
      // Our own resolver failed: the status says nothing about the address.
      if (verified.ourFailure === true) return;
      await this.#deps.integrations.withSession(integration, (session) =>
        session.writeMember(
          watch.audienceId,
          {
            memberId: member.id,
            status: verified.status,
            score: verified.score,
            checkedOn: at.slice(0, 10),
          },
          WATCH_WRITES,
        ),
      );
      written = true;
      // A deletion that names only the member (HubSpot's privacy deletion) finds its address here.
      await this.#deps.store.noteWatchMemberAddress(watch.id, member.id, at, addressKey(member.email));
    } finally {
      if (!written) await this.#deps.store.releaseWatchMember(watch.id, member.id, at);
    }
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }
}
