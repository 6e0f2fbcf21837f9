/**
 * Dashboard users, their sessions and their one-time links on Kysely, for SQLite and PostgreSQL
 * alike. A user's address is unique (lower-cased by the caller); a session and a link are found by
 * their token's hash only.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type {
  NewUser,
  NewUserToken,
  Session,
  User,
  UserStore,
  UserTokenPurpose,
} from '../../accounts/ports.ts';
import type { DatabaseSchema, SessionsTable, UsersTable } from './schema.ts';

export class KyselyUserStore implements UserStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async createUser(input: NewUser): Promise<User | null> {
    const createdAt = new Date().toISOString();
    const row: Selectable<UsersTable> = {
      id: randomUUID(),
      account_id: input.accountId,
      email: input.email,
      password_hash: input.passwordHash,
      created_at: createdAt,
      email_confirmed_at: input.emailConfirmedAt === undefined ? createdAt : input.emailConfirmedAt,
      operator: input.operator === true ? 1 : 0,
    };
    // The unique index decides between two sign-ups of one address at once.
    const inserted = await this.#db
      .insertInto('users')
      .values(row)
      .onConflict((conflict) => conflict.column('email').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1 ? toUser(row) : null;
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const row = await this.#db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row === undefined ? null : toUser(row);
  }

  async findUserById(id: string): Promise<User | null> {
    const row = await this.#db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toUser(row);
  }

  async listUsers(accountId?: string): Promise<User[]> {
    let query = this.#db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return (await query.execute()).map(toUser);
  }

  async setOperator(userId: string, operator: boolean): Promise<User | null> {
    await this.#db
      .updateTable('users')
      .set({ operator: operator ? 1 : 0 })
      .where('id', '=', userId)
      .execute();
    return this.findUserById(userId);
  }

  async changePassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
      let others = trx.deleteFrom('sessions').where('user_id', '=', userId);
      if (keepSessionId !== null) others = others.where('id', '!=', keepSessionId);
      await others.execute();
    });
  }

  async createSession(input: Omit<Session, 'id'>): Promise<Session> {
    const row: Selectable<SessionsTable> = {
      id: randomUUID(),
      user_id: input.userId,
      token_hash: input.tokenHash,
      created_at: input.createdAt,
      last_seen_at: input.lastSeenAt,
      expires_at: input.expiresAt,
    };
    await this.#db.insertInto('sessions').values(row).execute();
    return toSession(row);
  }

  async findSessionByHash(tokenHash: string): Promise<Session | null> {
    const row = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row === undefined ? null : toSession(row);
  }

  async extendSession(id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await this.#db
      .updateTable('sessions')
      .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
      .where('id', '=', id)
      .execute();
  }

  async deleteSession(id: string): Promise<void> {
    await this.#db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async deleteExpiredSessions(before: string): Promise<number> {
    const result = await this.#db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async confirmEmail(userId: string, at: string): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({ email_confirmed_at: at })
      .where('id', '=', userId)
      .where('email_confirmed_at', 'is', null)
      .execute();
  }

  async createUserToken(input: NewUserToken): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('user_tokens')
        .where('user_id', '=', input.userId)
        .where('purpose', '=', input.purpose)
        .execute();
      await trx
        .insertInto('user_tokens')
        .values({
          token_hash: input.tokenHash,
          user_id: input.userId,
          purpose: input.purpose,
          created_at: input.createdAt,
          expires_at: input.expiresAt,
        })
        .execute();
    });
  }

  async takeUserToken(tokenHash: string, purpose: UserTokenPurpose, now: string): Promise<string | null> {
    // One statement: of two requests with the same link, only the one whose delete found it wins.
    const taken = await this.#db
      .deleteFrom('user_tokens')
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .returning(['user_id', 'expires_at'])
      .executeTakeFirst();
    return taken === undefined || taken.expires_at <= now ? null : taken.user_id;
  }

  async deleteExpiredUserTokens(before: string): Promise<number> {
    const result = await this.#db
      .deleteFrom('user_tokens')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    emailConfirmedAt: row.email_confirmed_at,
    operator: Number(row.operator) === 1,
  };
}

function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: row.id,
    userId: row.user_id,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}
