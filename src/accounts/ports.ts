/**
 * The accounts port: accounts (the customer, with its plan), their API keys, dashboard users and
 * their sessions. Adapters in `src/adapters/store/` implement it on SQLite and PostgreSQL with the
 * same queries; one contract suite runs against both.
 */

/** An operator's overrides of a plan's figures for one account, or a key's own caps; null: none. */
export interface Figures {
  monthlyQuota: number | null;
  bulkQuota: number | null;
  rateLimit: number | null;
}

/** An account: the customer. Its plan's quotas and rate are shared by all its keys. */
export interface Account extends Figures {
  id: string;
  name: string;
  plan: string;
  createdAt: string;
  /**
   * Days its finished lists' results are kept, as the account set it; null or absent: the
   * server's default (MAILVET_RETENTION_DAYS); 0: kept. The plan's maximum caps it.
   */
  retentionDays?: number | null;
}

/** An account to store. */
export interface NewAccount extends Partial<Figures> {
  name: string;
  plan: string;
}

/** What an operator may change on an account. */
export type AccountPatch = Partial<Pick<Account, 'name' | 'plan' | 'retentionDays' | keyof Figures>>;

/**
 * `api`: a key a client sends. `dashboard`: the account's own use through the dashboard, metered
 * like a key (usage per key, lists) but never accepted as a bearer token and never listed.
 */
export type ApiKeyKind = 'api' | 'dashboard';

/** A stored API key: never the key itself, only its hash and display prefix. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  kind: ApiKeyKind;
  name: string;
  keyHash: string;
  displayPrefix: string;
  /** The key's own caps below its account's figures; null: the account's figure applies. */
  caps: Figures;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key to store: everything but what the store sets itself. */
export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'createdAt' | 'lastUsedAt' | 'revokedAt'>;

/** What the owner may change on a key. */
export interface ApiKeyPatch {
  name?: string;
  caps?: Partial<Figures>;
}

/** A key and the account it belongs to. */
export interface KeyWithAccount {
  key: ApiKeyRecord;
  account: Account;
}

export interface AccountStore {
  createAccount(input: NewAccount): Promise<Account>;
  /** The account with this id; null when none. */
  findAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  /** The account after the change; null when there is no such account. */
  updateAccount(id: string, patch: AccountPatch): Promise<Account | null>;
  /** Removes an account with everything it owns (keys, users, lists, usage). */
  deleteAccount(id: string): Promise<void>;
  createApiKey(input: NewApiKey): Promise<ApiKeyRecord>;
  /** The key with this id, revoked or not; null when none. */
  findApiKeyById(id: string): Promise<ApiKeyRecord | null>;
  /**
   * The key with this hash, revoked or not (the caller decides), with its account, in one lookup:
   * authentication does it on every request. Null when none.
   */
  findApiKeyByHash(keyHash: string): Promise<KeyWithAccount | null>;
  /**
   * What {@link findApiKeyByHash} would answer, when this store can tell at once without a lookup
   * (a key it keeps in memory, with nothing changed since); undefined: ask findApiKeyByHash.
   */
  knownApiKeyByHash?(keyHash: string): KeyWithAccount | undefined;
  /** Keys a client sends (`kind` api), oldest first; of one account when given. */
  listApiKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** The key after the change; null when there is no such key in that account. */
  updateApiKey(accountId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
  /** Records a use of the key (`last_used_at`). */
  touchApiKey(id: string, at: Date): Promise<void>;
  /** Marks a key revoked; false when there is no such key or it was already revoked. */
  revokeApiKey(id: string): Promise<boolean>;
  /** The account's dashboard key (`kind` dashboard), made on first use. */
  dashboardKey(accountId: string): Promise<ApiKeyRecord>;
}

/** A person who signs in to the dashboard; owns one account. */
export interface User {
  id: string;
  accountId: string;
  /** Lower-cased; unique. */
  email: string;
  passwordHash: string;
  createdAt: string;
  /**
   * When the user followed the link sent to their address; null: not yet. Sign-ups wait for it
   * while a mail relay is set; users made otherwise (the CLI, releases before it) are confirmed.
   */
  emailConfirmedAt: string | null;
  /**
   * An operator of this server: sees the probe host's health and how to change plans. Set only by
   * the CLI (`mailvet users create --operator`, `users update --operator`), never by sign-up.
   */
  operator: boolean;
}

/** A user to store; without `emailConfirmedAt` the address counts as confirmed now; not an operator unless said. */
export type NewUser = Omit<User, 'id' | 'createdAt' | 'emailConfirmedAt' | 'operator'> & {
  emailConfirmedAt?: string | null;
  operator?: boolean;
};

/** What a one-time link sent to a user's address does. */
export type UserTokenPurpose = 'confirm_email' | 'reset_password';

/** A one-time link's token as stored: only its hash. */
export interface NewUserToken {
  userId: string;
  purpose: UserTokenPurpose;
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
}

/** A signed-in browser: only the token's hash is stored. */
export interface Session {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface UserStore {
  /** Stores a new user; null when the address already has one. */
  createUser(input: NewUser): Promise<User | null>;
  findUserByEmail(email: string): Promise<User | null>;
  findUserById(id: string): Promise<User | null>;
  /** Every user, or those of one account, oldest first. */
  listUsers(accountId?: string): Promise<User[]>;
  /** Makes the user an operator or not; null when there is no such user. */
  setOperator(userId: string, operator: boolean): Promise<User | null>;
  /** Sets the password and ends every session of the user but `keepSessionId`. */
  changePassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<void>;
  createSession(input: Omit<Session, 'id'>): Promise<Session>;
  findSessionByHash(tokenHash: string): Promise<Session | null>;
  /** Slides the session's expiry. */
  extendSession(id: string, lastSeenAt: string, expiresAt: string): Promise<void>;
  deleteSession(id: string): Promise<void>;
  /** Removes the sessions that expired before `before` (ISO instant); returns how many. */
  deleteExpiredSessions(before: string): Promise<number>;
  /** Marks the user's address confirmed at `at`, unless it already was. */
  confirmEmail(userId: string, at: string): Promise<void>;
  /** Stores a one-time token; the user's earlier ones of the same purpose stop working. */
  createUserToken(input: NewUserToken): Promise<void>;
  /**
   * Uses up a token: removes it and returns its user's id when it has this purpose and has not
   * expired at `now` (ISO instant); null otherwise. Of two takes at once, one gets it.
   */
  takeUserToken(tokenHash: string, purpose: UserTokenPurpose, now: string): Promise<string | null>;
  /** Removes the one-time tokens that expired before `before`; returns how many. */
  deleteExpiredUserTokens(before: string): Promise<number>;
}

/** One message to one person; `html` is an optional second rendering of `text`. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Sends account mail through the operator's relay (MAILVET_MAIL_URL). */
export interface Mailer {
  /** Resolves once the relay has taken the message; rejects (naming no secret) when it did not. */
  send(message: MailMessage): Promise<void>;
}
