/**
 * The audit log on Kysely, SQLite and PostgreSQL alike. Append and read only, every read scoped to
 * one account; the single delete is the expiry's, of the oldest expired entries in one bounded
 * statement (a row-value IN over the primary key, which both databases take).
 */
import type { Kysely, Selectable } from 'kysely';
import type { AuditAction, AuditTargetType } from '../../audit/actions.ts';
import type { AuditActorType, AuditEntry, AuditLog, AuditQuery } from '../../audit/ports.ts';
import type { AuditLogTable, DatabaseSchema } from './schema.ts';

export class KyselyAuditStore implements AuditLog {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async record(entry: AuditEntry): Promise<void> {
    await this.#db
      .insertInto('audit_log')
      .values({
        account_id: entry.accountId,
        id: entry.id,
        at: entry.at,
        actor_type: entry.actor.type,
        actor_id: entry.actor.id,
        actor_label: entry.actor.label,
        ip: entry.ip,
        action: entry.action,
        target_type: entry.target.type,
        target_id: entry.target.id,
        details: JSON.stringify(entry.details),
      })
      .execute();
  }

  async list(accountId: string, query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.#db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
    if (query.action !== undefined) select = select.where('action', '=', query.action);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map(toEntry);
  }

  async deleteExpired(before: string, limit: number): Promise<number> {
    const result = await this.#db
      .deleteFrom('audit_log')
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('account_id', 'id'),
          'in',
          selectFrom('audit_log')
            .select(['account_id', 'id'])
            .where('at', '<', before)
            .orderBy('at')
            .limit(limit)
            .$asTuple('account_id', 'id'),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    at: row.at,
    actor: { type: row.actor_type as AuditActorType, id: row.actor_id, label: row.actor_label },
    ip: row.ip,
    action: row.action as AuditAction,
    target: { type: row.target_type as AuditTargetType, id: row.target_id },
    details: JSON.parse(row.details) as AuditEntry['details'],
  };
}
