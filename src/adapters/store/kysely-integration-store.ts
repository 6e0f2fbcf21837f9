/**
 * Connected integrations on Kysely, SQLite and PostgreSQL alike. Every query is scoped to the
 * account: another account's integration is not found.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Integration, IntegrationStore, ProviderName } from '../../integrations/ports.ts';
import type { DatabaseSchema, IntegrationsTable } from './schema.ts';

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
}

function toIntegration(row: Selectable<IntegrationsTable>): Integration {
  return {
    id: row.id,
    accountId: row.account_id,
    provider: row.provider as ProviderName,
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
