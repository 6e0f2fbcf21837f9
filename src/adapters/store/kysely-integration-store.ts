/**
 * Connected integrations on Kysely, SQLite and PostgreSQL alike. Every query is scoped to the
 * account: another account's integration is not found.
 */
import type { Kysely, Selectable } from 'kysely';
import type { CampaignCheck, LastCampaignCheck } from '../../integrations/campaign-ports.ts';
import type { Integration, IntegrationStore, Watch } from '../../integrations/ports.ts';
import type { DatabaseSchema, IntegrationsTable, IntegrationWatchesTable } from './schema.ts';

export class KyselyIntegrationStore implements IntegrationStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async createIntegration(input: Integration): Promise<Integration> {
    await this.#db
      .insertInto('integrations')
      .values({
        id: input.id,
        account_id: input.accountId,
        provider: input.provider,
        account_name: input.accountName,
        provider_account_id: input.providerAccountId,
        dc: input.dc,
        state: input.state,
        message: input.message,
        auth_kind: input.authKind,
        credential: input.sealedCredential,
        created_at: input.createdAt,
      })
      .execute();
    return input;
  }

  async findIntegration(accountId: string, id: string): Promise<Integration | null> {
    const row = await this.#db
      .selectFrom('integrations')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? null : toIntegration(row);
  }

  async listIntegrations(accountId: string): Promise<Integration[]> {
    const rows = await this.#db
      .selectFrom('integrations')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toIntegration);
  }

  async markDisconnected(accountId: string, id: string, message: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('integrations')
      .set({ state: 'disconnected', message })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteIntegration(accountId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('integrations')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async createWatch(watch: Watch): Promise<Watch> {
    await this.#db
      .insertInto('integration_watches')
      .values({
        id: watch.id,
        account_id: watch.accountId,
        integration_id: watch.integrationId,
        audience_id: watch.audienceId,
        token_hash: watch.tokenHash,
        webhook_id: watch.webhookId,
        created_at: watch.createdAt,
        poll_cursor: watch.pollCursor ?? null,
      })
      .execute();
    return watch;
  }

  async setWatchWebhook(id: string, webhookId: string): Promise<void> {
    await this.#db
      .updateTable('integration_watches')
      .set({ webhook_id: webhookId })
      .where('id', '=', id)
      .execute();
  }

  async listWatches(accountId: string, integrationId: string): Promise<Watch[]> {
    const rows = await this.#db
      .selectFrom('integration_watches')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWatch);
  }

  async findWatch(accountId: string, integrationId: string, id: string): Promise<Watch | null> {
    const row = await this.#db
      .selectFrom('integration_watches')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? null : toWatch(row);
  }

  async findWatchByTokenHash(tokenHash: string): Promise<Watch | null> {
    const row = await this.#db
      .selectFrom('integration_watches')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row === undefined ? null : toWatch(row);
  }

  async deleteWatch(id: string): Promise<void> {
    await this.#db.deleteFrom('integration_watches').where('id', '=', id).execute();
  }

  async claimWatchMember(watchId: string, memberId: string, at: string, notSince: string): Promise<boolean> {
    // One statement: of two deliveries of one event at once, exactly one claims the member.
    const claimed = await this.#db
      .insertInto('integration_watch_members')
      .values({ watch_id: watchId, member_id: memberId, verified_at: at })
      .onConflict((conflict) =>
        conflict
          .columns(['watch_id', 'member_id'])
          .doUpdateSet({ verified_at: at })
          .where('integration_watch_members.verified_at', '<', notSince),
      )
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async releaseWatchMember(watchId: string, memberId: string, at: string): Promise<void> {
    // Only the claim made then: a later one (another event, a day on) is not ours to give back.
    await this.#db
      .deleteFrom('integration_watch_members')
      .where('watch_id', '=', watchId)
      .where('member_id', '=', memberId)
      .where('verified_at', '=', at)
      .execute();
  }

  async noteWatchMemberAddress(
    watchId: string,
    memberId: string,
    at: string,
    addressKey: string,
  ): Promise<void> {
    await this.#db
      .updateTable('integration_watch_members')
      .set({ address_key: addressKey })
      .where('watch_id', '=', watchId)
      .where('member_id', '=', memberId)
      .where('verified_at', '=', at)
      .execute();
  }

  async integrationsOnPlatformAccount(provider: string, providerAccountId: string): Promise<Integration[]> {
    const rows = await this.#db
      .selectFrom('integrations')
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_account_id', '=', providerAccountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toIntegration);
  }

  async watchesWithWebhook(webhookId: string): Promise<Watch[]> {
    const rows = await this.#db
      .selectFrom('integration_watches')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWatch);
  }

  async advanceWatchCursor(id: string, from: string | null, to: string): Promise<boolean> {
    const moved = await this.#db
      .updateTable('integration_watches')
      .set({ poll_cursor: to })
      .where('id', '=', id)
      .where((eb) => (from === null ? eb('poll_cursor', 'is', null) : eb('poll_cursor', '=', from)))
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async addressesOfMember(integrationId: string, memberId: string): Promise<string[]> {
    // A run's list rows are `[email, member_id]` as JSON (RUN_LIST_HEADER); an erased row's member
    // id is blanked, so it is not found again.
    // Platform ids are digits (HubSpot) or hex (Mailchimp): nothing a LIKE pattern would read.
    const fromRuns = !/^[A-Za-z0-9-]{1,64}$/.test(memberId)
      ? []
      : await this.#db
          .selectFrom('list_rows as r')
          .innerJoin('integration_runs as run', 'run.list_id', 'r.list_id')
          .select('r.email')
          .distinct()
          .where('run.integration_id', '=', integrationId)
          .where('r.fields', 'like', `%,"${memberId}"]`)
          .execute();
    const fromWatches = await this.#db
      .selectFrom('integration_watch_members as m')
      .innerJoin('integration_watches as w', 'w.id', 'm.watch_id')
      .select('m.address_key')
      .where('w.integration_id', '=', integrationId)
      .where('m.member_id', '=', memberId)
      .where('m.address_key', 'is not', null)
      .execute();
    const addresses = new Set<string>();
    for (const row of fromRuns) addresses.add(row.email);
    for (const row of fromWatches) if (row.address_key !== null) addresses.add(row.address_key);
    return [...addresses];
  }

  async knowsAddress(
    integrationId: string,
    address: { addressKey: string; domain: string },
  ): Promise<boolean> {
    // Found through list_addresses' key (list, domain, address), so no run's rows are scanned.
    const inRuns = await this.#db
      .selectFrom('list_addresses as a')
      .innerJoin('integration_runs as run', 'run.list_id', 'a.list_id')
      .select('a.list_id')
      .where('run.integration_id', '=', integrationId)
      .where('a.domain', '=', address.domain)
      .where('a.address_key', '=', address.addressKey)
      .limit(1)
      .executeTakeFirst();
    if (inRuns !== undefined) return true;
    const inWatches = await this.#db
      .selectFrom('integration_watch_members as m')
      .innerJoin('integration_watches as w', 'w.id', 'm.watch_id')
      .select('m.watch_id')
      .where('w.integration_id', '=', integrationId)
      .where('m.address_key', '=', address.addressKey)
      .limit(1)
      .executeTakeFirst();
    return inWatches !== undefined;
  }

  async forgetWatchMember(integrationId: string, memberId: string): Promise<void> {
    await this.#db
      .deleteFrom('integration_watch_members')
      .where('member_id', '=', memberId)
      .where('watch_id', 'in', (eb) =>
        eb.selectFrom('integration_watches').select('id').where('integration_id', '=', integrationId),
      )
      .execute();
  }

  async saveLastCampaignCheck(last: LastCampaignCheck): Promise<void> {
    const row = {
      campaign_id: last.check.campaignId,
      verify_unverified: last.verifyUnverified ? 1 : 0,
      result: JSON.stringify(last.check),
      checked_at: last.checkedAt,
    };
    // Only the integration's owner's: a row for another account's integration is never written.
    const owned = await this.findIntegration(last.accountId, last.integrationId);
    if (owned === null) return;
    await this.#db
      .insertInto('campaign_checks')
      .values({ integration_id: last.integrationId, account_id: last.accountId, ...row })
      .onConflict((conflict) => conflict.column('integration_id').doUpdateSet(row))
      .execute();
  }

  async lastCampaignCheck(accountId: string, integrationId: string): Promise<LastCampaignCheck | null> {
    const row = await this.#db
      .selectFrom('campaign_checks')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .executeTakeFirst();
    if (row === undefined) return null;
    return {
      accountId: row.account_id,
      integrationId: row.integration_id,
      verifyUnverified: Number(row.verify_unverified) === 1,
      checkedAt: row.checked_at,
      check: JSON.parse(row.result) as CampaignCheck,
    };
  }
}

function toWatch(row: Selectable<IntegrationWatchesTable>): Watch {
  return {
    id: row.id,
    accountId: row.account_id,
    integrationId: row.integration_id,
    audienceId: row.audience_id,
    tokenHash: row.token_hash,
    webhookId: row.webhook_id,
    createdAt: row.created_at,
    pollCursor: row.poll_cursor,
  };
}

function toIntegration(row: Selectable<IntegrationsTable>): Integration {
  return {
    id: row.id,
    accountId: row.account_id,
    provider: row.provider,
    accountName: row.account_name,
    providerAccountId: row.provider_account_id,
    dc: row.dc,
    state: row.state === 'disconnected' ? 'disconnected' : 'connected',
    message: row.message,
    authKind: row.auth_kind === 'oauth' ? 'oauth' : 'api_key',
    sealedCredential: row.credential,
    createdAt: row.created_at,
  };
}
