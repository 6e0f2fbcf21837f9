/**
 * `DataProtectionStore` on Kysely, the same queries for SQLite and PostgreSQL: retention deletes a
 * finished list's rows and addresses slice by slice (each slice one short statement, picked by the
 * table's primary key, as `deleteList` does), erasure blanks one address in an account's lists and
 * deletes its feedback, and the export reads feedback page by page.
 */
import { type Kysely, sql } from 'kysely';
import { FINISHED_LIST_STATES } from '../../lists/ports.ts';
import {
  type AccountWithKeptResults,
  type DataProtectionStore,
  ERASED_MARK,
  type ErasedAddress,
  type FeedbackExportRow,
} from '../../privacy/ports.ts';
import type { DatabaseSchema } from './schema.ts';

/** `DataProtectionStore` on a Kysely database of either dialect. */
export class KyselyDataProtectionStore implements DataProtectionStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #reclaim: ((pages: number) => void) | undefined;

  /** `reclaim` gives free pages back (SQLite's `incremental_vacuum`, on the raw connection); none on PostgreSQL. */
  constructor(db: Kysely<DatabaseSchema>, reclaim?: (pages: number) => void) {
    this.#db = db;
    this.#reclaim = reclaim;
  }

  async accountsWithKeptResults(): Promise<AccountWithKeptResults[]> {
    const rows = await this.#db
      .selectFrom('lists')
      .innerJoin('accounts', 'accounts.id', 'lists.account_id')
      .select([
        'lists.account_id',
        'accounts.plan',
        'accounts.retention_days',
        sql<string>`min(lists.finished_at)`.as('oldest'),
      ])
      .where('lists.state', 'in', [...FINISHED_LIST_STATES])
      .where('lists.results_expired_at', 'is', null)
      .where('lists.finished_at', 'is not', null)
      .groupBy(['lists.account_id', 'accounts.plan', 'accounts.retention_days'])
      .execute();
    return rows.map((row) => ({
      accountId: row.account_id,
      plan: row.plan,
      retentionDays: row.retention_days === null ? null : Number(row.retention_days),
      oldestFinishedAt: row.oldest,
    }));
  }

  async listsEndedBefore(accountId: string, before: Date, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('lists')
      .select('id')
      .where('account_id', '=', accountId)
      .where('state', 'in', [...FINISHED_LIST_STATES])
      .where('results_expired_at', 'is', null)
      .where('finished_at', '<', before.toISOString())
      .orderBy('finished_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async markResultsExpired(listId: string, at: Date): Promise<boolean> {
    const result = await this.#db
      .updateTable('lists')
      .set({ results_expired_at: at.toISOString() })
      .where('id', '=', listId)
      .where('results_expired_at', 'is', null)
      .where('state', 'in', [...FINISHED_LIST_STATES])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async expiredListsWithRows(limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('lists')
      .select('id')
      .where('results_expired_at', 'is not', null)
      .where((eb) =>
        eb.or([
          eb.exists(
            eb.selectFrom('list_rows').select('list_id').whereRef('list_rows.list_id', '=', 'lists.id'),
          ),
          eb.exists(
            eb
              .selectFrom('list_addresses')
              .select('list_id')
              .whereRef('list_addresses.list_id', '=', 'lists.id'),
          ),
        ]),
      )
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async deleteResultSlice(listId: string, limit: number): Promise<number> {
    const rows = await this.#db
      .deleteFrom('list_rows')
      .where('list_id', '=', listId)
      .where(
        sql<boolean>`row_number in (select row_number from list_rows where list_id = ${listId} order by row_number limit ${limit})`,
      )
      .executeTakeFirst();
    if (rows.numDeletedRows > 0n) return Number(rows.numDeletedRows);
    const addresses = await this.#db
      .deleteFrom('list_addresses')
      .where('list_id', '=', listId)
      .where(
        sql<boolean>`(domain, address_key) in (select domain, address_key from list_addresses where list_id = ${listId} order by domain, address_key limit ${limit})`,
      )
      .executeTakeFirst();
    return Number(addresses.numDeletedRows);
  }

  async reclaimSpace(pages: number): Promise<void> {
    this.#reclaim?.(Math.max(1, Math.floor(pages)));
  }

  async eraseFromLists(accountId: string, address: ErasedAddress): Promise<number> {
    const found = await this.#db
      .selectFrom('list_addresses as a')
      .innerJoin('lists as l', 'l.id', 'a.list_id')
      .select(['a.list_id', 'a.first_row', 'a.row_count'])
      .where('l.account_id', '=', accountId)
      .where('a.domain', '=', address.domain)
      .where('a.address_key', '=', address.addressKey)
      .execute();
    let blanked = 0;
    for (const { list_id: listId, first_row: firstRow, row_count: rowCount } of found) {
      const rows = await this.#db
        .selectFrom('list_rows')
        .select(['row_number', 'email', 'fields'])
        .where('list_id', '=', listId)
        .where('row_number', '>=', firstRow)
        .where('domain', '=', address.domain)
        .where('address_key', '=', address.addressKey)
        .orderBy('row_number')
        .limit(Number(rowCount))
        .execute();
      for (const row of rows) {
        await this.#db
          .updateTable('list_rows')
          .set({ email: ERASED_MARK, address_key: ERASED_MARK, fields: erasedFields(row.fields, row.email) })
          .where('list_id', '=', listId)
          .where('row_number', '=', row.row_number)
          .execute();
      }
      blanked += rows.length;
      await this.#db
        .deleteFrom('list_addresses')
        .where('list_id', '=', listId)
        .where('domain', '=', address.domain)
        .where('address_key', '=', address.addressKey)
        .execute();
    }
    return blanked;
  }

  async eraseFromWatches(accountId: string, addressKey: string): Promise<void> {
    await this.#db
      .updateTable('integration_watch_members')
      .set({ address_key: null })
      .where('address_key', '=', addressKey)
      .where('watch_id', 'in', (eb) =>
        eb
          .selectFrom('integration_watches as w')
          .innerJoin('integrations as i', 'i.id', 'w.integration_id')
          .select('w.id')
          .where('i.account_id', '=', accountId),
      )
      .execute();
  }

  async eraseFeedback(accountId: string, feedbackAddress: string): Promise<number> {
    const result = await this.#db
      .deleteFrom('feedback_events')
      .where('account_id', '=', accountId)
      .where('email_normalized', '=', feedbackAddress)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async feedbackPage(
    accountId: string,
    after: { email: string; event: string; at: string } | null,
    limit: number,
  ): Promise<FeedbackExportRow[]> {
    let query = this.#db
      .selectFrom('feedback_events')
      .select(['email_normalized', 'event', 'at', 'created_at'])
      .where('account_id', '=', accountId);
    if (after !== null) {
      query = query.where(
        sql<boolean>`(email_normalized, event, at) > (${after.email}, ${after.event}, ${after.at})`,
      );
    }
    const rows = await query
      .orderBy('email_normalized')
      .orderBy('event')
      .orderBy('at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      email: row.email_normalized,
      event: row.event,
      at: row.at,
      createdAt: row.created_at,
    }));
  }
}

/**
 * An erased row's CSV cells: those that held the address say `[erased]`, every other is emptied
 * (a row's other columns are the person's too: name, company). The row keeps its width.
 */
function erasedFields(fields: string | null, email: string): string | null {
  if (fields === null) return null;
  const cells = JSON.parse(fields) as string[];
  const address = email.trim().toLowerCase();
  return JSON.stringify(cells.map((cell) => (cell.trim().toLowerCase() === address ? ERASED_MARK : '')));
}
