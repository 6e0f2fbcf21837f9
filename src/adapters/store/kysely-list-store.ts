/**
 * `ListStore` on Kysely: the same queries for SQLite and PostgreSQL. The multi-statement writes
 * (adding rows, charging addresses, saving results) are the dialect's own, passed in: SQLite runs
 * them synchronously in the store's write batcher, PostgreSQL in a Kysely transaction holding the
 * list's row. Webhook deliveries are in `kysely-webhook-deliveries.ts`.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  AddressCharge,
  ListPeer,
  ListRecord,
  ListState,
  ListStore,
  NewList,
  PendingAddress,
  PendingCursor,
  ResultFilter,
  ResultRow,
  UploadedAddress,
  UploadedRow,
} from '../../lists/ports.ts';
import {
  type AccountStorage,
  compareTurns,
  FINISHED_LIST_STATES,
  LIVE_LIST_STATES,
  type ListStart,
  type ListTurn,
} from '../../lists/ports.ts';
import type { Used } from '../../usage/ports.ts';
import { domainOfKey } from '../../usage/verification-service.ts';
import type { Status, VerificationResult } from '../../verification/report.ts';
import { KyselyWebhookDeliveries } from './kysely-webhook-deliveries.ts';
import { addressKeysIn, countColumnOf, STATUS_COUNT_COLUMNS, toListRecord } from './list-rows.ts';
import { decodeResult, encodeResult } from './result-codec.ts';
import type { DatabaseSchema, ListAddressesTable } from './schema.ts';
import { refundRows } from './usage-queries.ts';

/**
 * The writes each dialect supplies (`sqlite/list-writes.ts`, `postgres/list-writes.ts`): the
 * multi-statement ones, which must hold the list's row or run in SQLite's write batcher.
 */
export type ListWrites = Pick<ListStore, 'addRows' | 'addAddresses' | 'chargeAddresses' | 'saveResults'>;

/** `ListStore` on a Kysely database of either dialect. */
export class KyselyListStore extends KyselyWebhookDeliveries implements ListStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #kind: 'sqlite' | 'postgres';
  readonly #writes: ListWrites;

  constructor(db: Kysely<DatabaseSchema>, writes: ListWrites, kind: 'sqlite' | 'postgres') {
    super(db);
    this.#db = db;
    this.#kind = kind;
    this.#writes = writes;
  }

  async beginList(input: NewList, now: Date): Promise<string> {
    const id = `lst_${crypto.randomUUID().replaceAll('-', '')}`;
    const at = now.toISOString();
    await this.#db
      .insertInto('lists')
      .values({
        id,
        account_id: input.accountId,
        api_key_id: input.apiKeyId,
        name: '',
        state: 'uploading',
        source: input.source,
        header: input.header === null ? null : JSON.stringify(input.header),
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  }

  addRows(listId: string, rows: readonly UploadedRow[], now: Date): Promise<void> {
    return this.#writes.addRows(listId, rows, now);
  }

  addAddresses(
    listId: string,
    addresses: readonly UploadedAddress[],
    now: Date,
    merge: boolean,
  ): Promise<void> {
    return this.#writes.addAddresses(listId, addresses, now, merge);
  }

  async finishUpload(
    listId: string,
    now: Date,
    details: { name: string; webhookUrl: string | null },
  ): Promise<ListRecord> {
    const totals = await this.#db
      .selectFrom('list_addresses')
      .select([
        sql<number>`count(*)`.as('unique_addresses'),
        sql<number>`cast(coalesce(sum(row_count), 0) as bigint)`.as('total_rows'),
      ])
      .where('list_id', '=', listId)
      .executeTakeFirstOrThrow();
    await this.#db
      .updateTable('lists')
      .set({
        state: 'queued',
        name: details.name,
        webhook_url: details.webhookUrl,
        total_rows: Number(totals.total_rows),
        unique_addresses: Number(totals.unique_addresses),
        updated_at: now.toISOString(),
      })
      .where('id', '=', listId)
      .where('state', '=', 'uploading')
      .execute();
    if (this.#kind === 'postgres') {
      await this.#refreshStatistics(Number(totals.total_rows), Number(totals.unique_addresses));
    }
    const list = await this.getList(listId);
    if (list === null) throw new Error(`list ${listId} vanished while its upload finished`);
    return list;
  }

  /**
   * PostgreSQL plans the list's reads from its statistics, which autovacuum refreshes only later:
   * on stale ones (a few hundred rows where there are a million) every page of results joined the
   * whole list. So a table this upload grew by more than a tenth of what its statistics count (or
   * never counted) is analyzed now. Not every time: ANALYZE reads a sample of 30,000 rows, pages
   * all over a large shared table, for an upload that changed nothing its plans depend on.
   */
  async #refreshStatistics(rows: number, addresses: number): Promise<void> {
    const added: Record<string, number> = { list_rows: rows, list_addresses: addresses };
    const { rows: tables } = await sql<{ name: string; counted: number }>`
      select relname as name, reltuples as counted from pg_class
       where oid in ('list_rows'::regclass, 'list_addresses'::regclass)`.execute(this.#db);
    const stale = tables
      .filter(({ name, counted }) => Number(counted) < 0 || (added[name] ?? 0) * 10 > Number(counted))
      .map(({ name }) => sql.table(name));
    if (stale.length > 0) await sql`analyze ${sql.join(stale)}`.execute(this.#db);
  }

  async deleteList(listId: string): Promise<void> {
    // Rows go in slices: one DELETE of a million rows would hold SQLite's only writer for seconds.
    // Each slice is picked and deleted by the table's primary key (list_id and this column): by
    // another column, every slice scanned all of the list's rows (quadratic: half a minute for a
    // million-row list, the event loop held on SQLite).
    for (const [table, key, columns] of [
      ['list_rows', sql`row_number`, sql`row_number`],
      ['list_addresses', sql`(domain, address_key)`, sql`domain, address_key`],
    ] as const) {
      for (;;) {
        const { numDeletedRows } = await this.#db
          .deleteFrom(table)
          .where('list_id', '=', listId)
          .where(sql<boolean>`${key} in (
            select ${columns} from ${sql.table(table)} where list_id = ${listId} limit 10000)`)
          .executeTakeFirst();
        if (numDeletedRows === 0n) break;
      }
    }
    await this.#db.deleteFrom('lists').where('id', '=', listId).execute();
  }

  async deleteStaleUploads(before: Date): Promise<number> {
    const stale = await this.#db
      .selectFrom('lists')
      .select('id')
      .where('state', '=', 'uploading')
      .where('updated_at', '<', before.toISOString())
      .execute();
    for (const { id } of stale) await this.deleteList(id);
    return stale.length;
  }

  async accountStorage(accountId: string): Promise<AccountStorage> {
    const finished = [...FINISHED_LIST_STATES];
    const row = await this.#db
      .selectFrom('lists')
      .select((eb) => [
        // A list whose results expired keeps its counts but no longer its rows.
        eb.fn
          .coalesce(
            eb.fn.sum<number | string | bigint>(
              eb.case().when('results_expired_at', 'is', null).then(eb.ref('total_rows')).else(0).end(),
            ),
            eb.lit(0),
          )
          .as('rows'),
        eb.fn
          .sum<number | string | bigint>(eb.case().when('state', 'in', finished).then(0).else(1).end())
          .as('unfinished'),
      ])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return { storedRows: Number(row?.rows ?? 0), unfinishedLists: Number(row?.unfinished ?? 0) };
  }

  async getList(listId: string, accountId?: string): Promise<ListRecord | null> {
    let query = this.#db
      .selectFrom('lists')
      .selectAll()
      .where('id', '=', listId)
      .where('state', '!=', 'uploading');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row === undefined ? null : toListRecord(row);
  }

  async listLists(
    accountId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<ListRecord[]> {
    let query = this.#db
      .selectFrom('lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('state', '!=', 'uploading');
    if (after !== undefined) {
      query = query.where(sql<boolean>`(created_at, id) < (${after.createdAt}, ${after.id})`);
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toListRecord);
  }

  async transition(
    listId: string,
    from: readonly ListState[],
    to: ListState,
    now: Date,
    patch: { pauseReason?: ListRecord['pauseReason']; message?: string | null } = {},
    accountId?: string,
  ): Promise<boolean> {
    const at = now.toISOString();
    const finished = to === 'completed' || to === 'failed' || to === 'cancelled';
    let update = this.#db
      .updateTable('lists')
      .set({
        state: to,
        updated_at: at,
        ...(to === 'running' && { started_at: sql<string>`coalesce(started_at, ${at})` }),
        ...(finished && { finished_at: at }),
        ...(patch.pauseReason !== undefined && { pause_reason: patch.pauseReason }),
        ...(patch.message !== undefined && { message: patch.message }),
      })
      .where('id', '=', listId)
      .where('state', 'in', [...from]);
    if (accountId !== undefined) update = update.where('account_id', '=', accountId);
    const result = await update.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async runnableListIds(): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('lists')
      .select('id')
      .where('state', 'in', ['queued', 'running'])
      .orderBy('created_at')
      .execute();
    return rows.map((row) => row.id);
  }

  async startRun(listId: string, now: Date, maxRunning: number): Promise<ListStart> {
    const at = now.toISOString();
    // A lost race (a pause, another worker) is looked at again; the third look decides.
    for (let look = 0; look < 3; look++) {
      const list = await this.#db
        .selectFrom('lists')
        .select(['state', 'not_before', 'account_id'])
        .where('id', '=', listId)
        .executeTakeFirst();
      if (list === undefined || (list.state !== 'queued' && list.state !== 'running'))
        return { kind: 'idle' };
      if (list.state === 'running' && list.not_before === null) return { kind: 'running' };
      if (list.not_before !== null && list.not_before > at) return { kind: 'waiting', at: list.not_before };
      const notBefore = list.not_before;
      const start = (db: Kysely<DatabaseSchema>) =>
        db
          .updateTable('lists')
          .set({
            state: 'running',
            not_before: null,
            updated_at: at,
            started_at: sql<string>`coalesce(started_at, ${at})`,
          })
          .where('id', '=', listId)
          .where('state', '=', list.state)
          .where((eb) =>
            notBefore === null ? eb('not_before', 'is', null) : eb('not_before', '=', notBefore),
          )
          // The cap is in the same statement: SQLite runs one writer at a time.
          .where(
            sql<boolean>`(select count(*) from lists as others where others.account_id = ${list.account_id} and others.state = 'running' and others.not_before is null) < ${maxRunning}`,
          )
          .executeTakeFirst();
      const started =
        this.#kind === 'postgres'
          ? await this.#db.transaction().execute(async (trx) => {
              // Under READ COMMITTED two workers starting lists of one account at once would both
              // count the same running lists and both pass the cap: per account, they take turns.
              await sql`select pg_advisory_xact_lock(hashtext(${`mailvet:running:${list.account_id}`}))`.execute(
                trx,
              );
              return start(trx);
            })
          : await start(this.#db);
      if (started.numUpdatedRows > 0n) return { kind: 'started' };
      const now2 = await this.#db
        .selectFrom('lists')
        .select(['state', 'not_before'])
        .where('id', '=', listId)
        .executeTakeFirst();
      if (now2?.state === list.state && now2.not_before === list.not_before) return { kind: 'capped' };
    }
    return { kind: 'capped' };
  }

  async waitUntil(listId: string, at: Date): Promise<boolean> {
    const result = await this.#db
      .updateTable('lists')
      .set({ not_before: at.toISOString() })
      .where('id', '=', listId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listTurns(now: Date): Promise<ListTurn[]> {
    const at = now.toISOString();
    // The oldest ready list of each account (window functions: SQLite 3.25+, PostgreSQL).
    const ready = await sql<{ id: string; account_id: string; api_key_id: string; created_at: string }>`
      select id, account_id, api_key_id, created_at from (
        select id, account_id, api_key_id, created_at,
               row_number() over (partition by account_id order by created_at, id) as turn
          from lists
         where (state = 'queued' or (state = 'running' and not_before is not null))
           and (not_before is null or not_before <= ${at})
      ) ranked where turn = 1`.execute(this.#db);
    if (ready.rows.length === 0) return [];
    const accounts = await this.#db
      .selectFrom('lists')
      .select([
        'account_id',
        sql<number>`sum(case when state = 'running' and not_before is null then 1 else 0 end)`.as('running'),
        sql<string | null>`max(started_at)`.as('last_started'),
      ])
      .where('account_id', 'in', [...new Set(ready.rows.map((row) => row.account_id))])
      .groupBy('account_id')
      .execute();
    const accountOf = new Map(accounts.map((row) => [row.account_id, row]));
    return ready.rows
      .map((row) => ({
        listId: row.id,
        accountId: row.account_id,
        apiKeyId: row.api_key_id,
        running: Number(accountOf.get(row.account_id)?.running ?? 0),
        lastStartedAt: accountOf.get(row.account_id)?.last_started ?? null,
        createdAt: row.created_at,
      }))
      .sort((x, y) => compareTurns(x, y) || x.createdAt.localeCompare(y.createdAt))
      .map(({ createdAt: _, ...turn }) => turn);
  }

  async inFlightCharges(listId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('list_addresses')
      .select('address_key')
      .where('list_id', '=', listId)
      .where('charged', '=', 1)
      .where('done', '=', 0)
      .where('retry_at', 'is', null)
      .execute();
    return rows.map((row) => row.address_key);
  }

  async quotaPausedLists(): Promise<Array<{ id: string; apiKeyId: string }>> {
    const rows = await this.#db
      .selectFrom('lists')
      .select(['id', 'api_key_id'])
      .where('state', '=', 'paused')
      .where('pause_reason', '=', 'quota')
      .execute();
    return rows.map((row) => ({ id: row.id, apiKeyId: row.api_key_id }));
  }

  async pendingAddresses(
    listId: string,
    cursor: PendingCursor | null,
    limit: number,
    domain?: string,
  ): Promise<PendingAddress[]> {
    let query = this.#db
      .selectFrom('list_addresses')
      .selectAll()
      .where('list_id', '=', listId)
      .where('done', '=', 0)
      .where('retry_at', 'is', null);
    if (domain !== undefined) query = query.where('domain', '=', domain);
    if (cursor !== null) {
      query = query.where(sql<boolean>`(domain, address_key) > (${cursor.domain}, ${cursor.addressKey})`);
    }
    const rows = await query.orderBy('domain').orderBy('address_key').limit(limit).execute();
    return rows.map(toPendingAddress);
  }

  async pendingDomains(listId: string, after: string | null, limit: number): Promise<string[]> {
    let query = this.#db
      .selectFrom('list_addresses')
      .select('domain')
      .distinct()
      .where('list_id', '=', listId)
      .where('done', '=', 0)
      .where('retry_at', 'is', null);
    if (after !== null) query = query.where('domain', '>', after);
    const rows = await query.orderBy('domain').limit(limit).execute();
    return rows.map((row) => row.domain);
  }

  async peersAtDomain(listId: string, domain: string, limit: number): Promise<ListPeer[]> {
    const rows = await this.#db
      .selectFrom('list_addresses')
      .select(['email', 'status', 'done'])
      .where('list_id', '=', listId)
      .where('domain', '=', domain)
      .orderBy('first_row')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      localPart: row.email.slice(0, row.email.lastIndexOf('@')),
      confirmed: Number(row.done) === 1 && row.status === 'VALID',
    }));
  }

  async dueRechecks(listId: string, now: Date, limit: number): Promise<PendingAddress[]> {
    const rows = await this.#db
      .selectFrom('list_addresses')
      .selectAll()
      .where('list_id', '=', listId)
      .where('retry_at', 'is not', null)
      .where('retry_at', '<=', now.toISOString())
      .where('done', '=', 0)
      .orderBy('domain')
      .orderBy('address_key')
      .limit(limit)
      .execute();
    return rows.map(toPendingAddress);
  }

  async nextRecheckAt(listId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('list_addresses')
      .select(sql<string | null>`min(retry_at)`.as('next'))
      .where('list_id', '=', listId)
      .where('retry_at', 'is not', null)
      .where('done', '=', 0)
      .executeTakeFirst();
    return row?.next ?? null;
  }

  async unchargeAddresses(
    listId: string,
    addressKeys: readonly string[],
    charge: AddressCharge,
  ): Promise<void> {
    if (addressKeys.length === 0) return;
    // No transaction (SQLite's writes run in their own batcher): month by month, each unmark and
    // its refund as before, so a refund is never larger than what was unmarked.
    const months = await this.#db
      .selectFrom('list_addresses')
      .select('charged_month as month')
      .distinct()
      .where('list_id', '=', listId)
      .where(addressKeysIn(addressKeys))
      .where('charged', '=', 1)
      .execute();
    for (const { month } of months) {
      const unmarked = await this.#db
        .updateTable('list_addresses')
        // The month stays (read only while charged): the row keeps its size.
        .set({ charged: 0 })
        .where('list_id', '=', listId)
        .where(addressKeysIn(addressKeys))
        .where('charged', '=', 1)
        .where((eb) => (month === null ? eb('charged_month', 'is', null) : eb('charged_month', '=', month)))
        .executeTakeFirst();
      const count = Number(unmarked.numUpdatedRows);
      if (count === 0) continue;
      await refundRows(this.#db, charge, month ?? charge.month, 'verifications', count);
    }
  }

  saveResults(
    listId: string,
    results: ReadonlyArray<{ addressKey: string; result: VerificationResult }>,
  ): Promise<void> {
    return this.#writes.saveResults(listId, results);
  }

  chargeAddresses(
    listId: string,
    addressKeys: readonly string[],
    charge: AddressCharge,
  ): Promise<{ charged: string[]; used: Used; stopped?: true }> {
    return this.#writes.chargeAddresses(listId, addressKeys, charge);
  }

  async deferAddresses(
    listId: string,
    items: ReadonlyArray<{ addressKey: string; result: VerificationResult; retryAt: Date }>,
  ): Promise<void> {
    for (const { addressKey, result, retryAt } of items) {
      await this.#db
        .updateTable('list_addresses')
        .set({
          attempts: sql<number>`attempts + 1`,
          retry_at: retryAt.toISOString(),
          status: result.status,
          result: encodeResult(result),
        })
        .where('list_id', '=', listId)
        .where('domain', '=', domainOfKey(addressKey))
        .where('address_key', '=', addressKey)
        .where('done', '=', 0)
        // A paused or cancelled list keeps what it had: no result lands after the pause or cancel.
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('lists')
              .select('lists.id')
              .where('lists.id', '=', listId)
              .where('lists.state', 'in', [...LIVE_LIST_STATES]),
          ),
        )
        .execute();
    }
  }

  async recount(listId: string): Promise<void> {
    const groups = await this.#db
      .selectFrom('list_addresses')
      .select([
        'status',
        sql<number>`count(*)`.as('addresses'),
        sql<number>`cast(sum(row_count) as bigint)`.as('rows'),
      ])
      .where('list_id', '=', listId)
      .where('done', '=', 1)
      .groupBy('status')
      .execute();
    const counters: Record<string, number> = { processed_rows: 0, processed_addresses: 0 };
    for (const column of STATUS_COUNT_COLUMNS) counters[column] = 0;
    for (const group of groups) {
      counters.processed_rows! += Number(group.rows);
      counters.processed_addresses! += Number(group.addresses);
      const column = countColumnOf(group.status as Status);
      counters[column] = (counters[column] ?? 0) + Number(group.rows);
    }
    await this.#db.updateTable('lists').set(counters).where('id', '=', listId).execute();
  }

  async resultRows(
    listId: string,
    afterRow: number,
    limit: number,
    statuses?: readonly Status[],
  ): Promise<ResultRow[]> {
    const rows = await this.#resultQuery(listId, { statuses })
      .select(['r.row_number', 'r.email', 'r.fields', 'a.done', 'a.result'])
      .where('r.row_number', '>', afterRow)
      .orderBy('r.row_number')
      .limit(limit)
      .execute();
    return rows.map(toResultRow);
  }

  async resultRowsAt(
    listId: string,
    offset: number,
    limit: number,
    filter: ResultFilter,
  ): Promise<ResultRow[]> {
    let query = this.#resultQuery(listId, filter)
      .select(['r.row_number', 'r.email', 'r.fields', 'a.done', 'a.result'])
      .orderBy('r.row_number')
      .limit(limit);
    // Rows are numbered 1, 2, 3… as uploaded: unfiltered, the offset is a row number, found in the
    // primary key instead of counted past (a page deep in a million rows costs what the first does).
    query = isFiltered(filter) ? query.offset(offset) : query.where('r.row_number', '>', offset);
    return (await query.execute()).map(toResultRow);
  }

  async countResultRows(listId: string, filter: ResultFilter): Promise<number> {
    const row = await this.#resultQuery(listId, filter)
      .select(sql<number>`count(*)`.as('rows'))
      .executeTakeFirst();
    return Number(row?.rows ?? 0);
  }

  /** A list's rows beside their addresses, narrowed by `filter`. */
  #resultQuery(listId: string, filter: ResultFilter) {
    let query = this.#db
      .selectFrom('list_rows as r')
      .leftJoin('list_addresses as a', (join) =>
        join
          .onRef('a.list_id', '=', 'r.list_id')
          .onRef('a.domain', '=', 'r.domain')
          .onRef('a.address_key', '=', 'r.address_key'),
      )
      .where('r.list_id', '=', listId);
    const { statuses, search } = filter;
    if (statuses !== undefined) query = query.where('a.done', '=', 1).where('a.status', 'in', [...statuses]);
    if (search !== undefined && search !== '') {
      // The search is text, not a pattern: LIKE's wildcards in it match only themselves. `!` is the
      // escape (a backslash would depend on PostgreSQL's standard_conforming_strings).
      const pattern = `%${search.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
      query = query.where(sql<boolean>`lower(r.email) like ${pattern} escape '!'`);
    }
    return query;
  }
}

/** Whether `filter` leaves any row out. */
function isFiltered(filter: ResultFilter): boolean {
  return filter.statuses !== undefined || (filter.search !== undefined && filter.search !== '');
}

function toResultRow(row: {
  row_number: number;
  email: string;
  fields: string | null;
  done: number | null;
  result: string | Uint8Array | null;
}): ResultRow {
  return {
    rowNumber: Number(row.row_number),
    email: row.email,
    fields: row.fields === null ? null : (JSON.parse(row.fields) as string[]),
    // A provisional result (waiting for its re-check) is not a result yet.
    result:
      Number(row.done) === 1 && row.result !== null ? withEmail(decodeResult(row.result), row.email) : null,
  };
}

/** A duplicate row repeats its address's result under the address as that row wrote it. */
function withEmail(result: VerificationResult, email: string): VerificationResult {
  return result.email === email ? result : { ...result, email };
}

function toPendingAddress(row: Selectable<ListAddressesTable>): PendingAddress {
  return {
    addressKey: row.address_key,
    email: row.email,
    domain: row.domain,
    firstRow: Number(row.first_row),
    rowCount: Number(row.row_count),
    charged: Number(row.charged) === 1,
    attempts: Number(row.attempts),
  };
}
