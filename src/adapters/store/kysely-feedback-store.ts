/**
 * Sender feedback on Kysely, SQLite and PostgreSQL alike. Every query is scoped to one account.
 * A record holds the account's row (a no-op UPDATE: a row lock on PostgreSQL, the write lock on
 * SQLite) while it counts and inserts, so concurrent records never take an account past its cap;
 * it decides before writing, so it never rolls back (on SQLite a rollback would undo the quota
 * charges the write batcher may have run on the same connection meanwhile). A large record gives
 * the event loop a turn between its statements: SQLite runs them synchronously, and 10,000 events
 * in one go held every other request of the process for a second.
 */
import type Database from 'better-sqlite3';
import { type Kysely, sql, type Transaction } from 'kysely';
import {
  type AddressFeedback,
  type DomainFeedbackStats,
  FEEDBACK_EVENTS,
  type FeedbackEvent,
  type FeedbackRecord,
  type FeedbackStore,
  type RecordOutcome,
} from '../../feedback/ports.ts';
import type { DatabaseSchema } from './schema.ts';

/** Rows per INSERT and addresses per lookup: well under SQLite's and PostgreSQL's bound parameters. */
const CHUNK = 500;

/** An address's latest instant per event, as `[event, at]` rows. */
export type OutcomeRows = (accountId: string, address: string) => ReadonlyArray<readonly [string, string]>;

const OUTCOME_SQL = `select event, max(at) from feedback_events
  where account_id = ? and email_normalized = ? group by event`;

/**
 * On SQLite, the address lookup as one prepared statement: every verification of an account runs
 * it, and Kysely's query building cost several times what the lookup itself does.
 */
export function sqliteOutcomeRows(connection: Database.Database): OutcomeRows {
  const statement = connection.prepare(OUTCOME_SQL).raw(true);
  return (accountId, address) => statement.all(accountId, address) as Array<[string, string]>;
}

export class KyselyFeedbackStore implements FeedbackStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #outcomeRows: OutcomeRows | undefined;

  constructor(db: Kysely<DatabaseSchema>, outcomeRows?: OutcomeRows) {
    this.#db = db;
    this.#outcomeRows = outcomeRows;
  }

  record(accountId: string, events: readonly FeedbackRecord[], maxEvents: number): Promise<RecordOutcome> {
    const unique = [...new Map(events.map((event) => [identityOf(event), event])).values()];
    return this.#db.transaction().execute(async (trx) => {
      const held = await trx
        .updateTable('accounts')
        .set((eb) => ({ name: eb.ref('name') }))
        .where('id', '=', accountId)
        .executeTakeFirst();
      if (Number(held.numUpdatedRows) !== 1) throw new Error(`no account ${accountId}`);
      const stored = await countOf(trx, accountId);
      const known = await storedIdentities(trx, accountId, unique);
      const fresh = unique.filter((event) => !known.has(identityOf(event)));
      if (stored + fresh.length > maxEvents) return { kind: 'full', stored, maxEvents };
      const createdAt = new Date().toISOString();
      let recorded = 0;
      for (let i = 0; i < fresh.length; i += CHUNK) {
        const rows = fresh.slice(i, i + CHUNK).map((event) => ({
          account_id: accountId,
          email_normalized: event.address,
          domain: event.domain,
          event: event.event,
          at: event.at,
          created_at: createdAt,
        }));
        const inserted = await trx
          .insertInto('feedback_events')
          .values(rows)
          .onConflict((conflict) =>
            conflict.columns(['account_id', 'email_normalized', 'event', 'at']).doNothing(),
          )
          .executeTakeFirst();
        recorded += Number(inserted.numInsertedOrUpdatedRows ?? 0);
        await nextTurn();
      }
      return { kind: 'recorded', recorded, duplicates: events.length - recorded };
    });
  }

  async outcomeOf(accountId: string, address: string): Promise<AddressFeedback> {
    const rows =
      this.#outcomeRows?.(accountId, address) ??
      (
        await this.#db
          .selectFrom('feedback_events')
          .select((eb) => ['event', eb.fn.max('at').as('latest')])
          .where('account_id', '=', accountId)
          .where('email_normalized', '=', address)
          .groupBy('event')
          .execute()
      ).map((row) => [row.event, row.latest] as const);
    const outcome: Record<FeedbackEvent, string | null> = {
      hard_bounce: null,
      soft_bounce: null,
      delivered: null,
      complaint: null,
    };
    for (const [event, latest] of rows) {
      if (isFeedbackEvent(event)) outcome[event] = latest;
    }
    return outcome;
  }

  async domainStats(accountId: string, domain: string): Promise<DomainFeedbackStats> {
    // Per address the latest instant of each event, then counted; the bounce rule is isBounced's.
    const result = await sql<Record<string, number | string | null>>`
      select count(*) as addresses,
        sum(case when hard_bounce is null then 0 else 1 end) as hard_bounce,
        sum(case when soft_bounce is null then 0 else 1 end) as soft_bounce,
        sum(case when delivered is null then 0 else 1 end) as delivered,
        sum(case when complaint is null then 0 else 1 end) as complaint,
        sum(case when hard_bounce is not null and (delivered is null or delivered <= hard_bounce)
          then 1 else 0 end) as bounced
      from (
        select email_normalized,
          max(case when event = 'hard_bounce' then at end) as hard_bounce,
          max(case when event = 'soft_bounce' then at end) as soft_bounce,
          max(case when event = 'delivered' then at end) as delivered,
          max(case when event = 'complaint' then at end) as complaint
        from feedback_events
        where account_id = ${accountId} and domain = ${domain}
        group by email_normalized
      ) per_address`.execute(this.#db);
    const row = result.rows[0] ?? {};
    const count = (name: string) => Number(row[name] ?? 0);
    return {
      addresses: count('addresses'),
      byEvent: {
        hard_bounce: count('hard_bounce'),
        soft_bounce: count('soft_bounce'),
        delivered: count('delivered'),
        complaint: count('complaint'),
      },
      bounced: count('bounced'),
    };
  }

  async deliveredAtDomain(accountId: string, domain: string, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('feedback_events')
      .select('email_normalized')
      .distinct()
      .where('account_id', '=', accountId)
      .where('domain', '=', domain)
      .where('event', '=', 'delivered')
      .orderBy('email_normalized')
      .limit(limit)
      .execute();
    return rows.map((row) => row.email_normalized);
  }

  countEvents(accountId: string): Promise<number> {
    return countOf(this.#db, accountId);
  }

  async hasEvents(accountId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('feedback_events')
      .select('account_id')
      .where('account_id', '=', accountId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

function identityOf(event: { address: string; event: string; at: string }): string {
  return `${event.address}\n${event.event}\n${event.at}`;
}

function isFeedbackEvent(value: string): value is FeedbackEvent {
  return (FEEDBACK_EVENTS as readonly string[]).includes(value);
}

async function countOf(db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>, accountId: string) {
  const { count } = await db
    .selectFrom('feedback_events')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The identities among `events` the account has stored already. */
async function storedIdentities(
  trx: Transaction<DatabaseSchema>,
  accountId: string,
  events: readonly FeedbackRecord[],
): Promise<Set<string>> {
  const addresses = [...new Set(events.map((event) => event.address))];
  const known = new Set<string>();
  for (let i = 0; i < addresses.length; i += CHUNK) {
    const rows = await trx
      .selectFrom('feedback_events')
      .select(['email_normalized', 'event', 'at'])
      .where('account_id', '=', accountId)
      .where('email_normalized', 'in', addresses.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) known.add(identityOf({ ...row, address: row.email_normalized }));
    await nextTurn();
  }
  return known;
}

/** Lets other requests of the process run between two statements of a long record. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
