/**
 * The usage charges of `usage-queries.ts` as synchronous better-sqlite3 statements, for the write
 * batcher: the same SQL, the same steps (grant on the key's row, then on the account's, give the
 * key's row back what the account refused), run inside one of the batcher's transactions.
 */
import type Database from 'better-sqlite3';
import type { UsageMonth } from '../../../usage/months.ts';
import type { Ceiling, UsageOwner, Used } from '../../../usage/ports.ts';

const UNCAPPED = Number.MAX_SAFE_INTEGER;

interface Row {
  verifications: number;
  bulk_requests: number;
}

/** The charges of one table (the key's `usage`, or `account_usage`). */
function tableStatements(connection: Database.Database, table: string, idColumn: string) {
  const where = `${idColumn} = @id and month = @month`;
  const grant =
    '(case when @limit - verifications < @requested then @limit - verifications else @requested end)';
  return {
    // Raw (an array, not an object): better-sqlite3 makes and interns each column's name for a row
    // object, which cost more than the update itself on the API's path (one grant per request).
    grant: connection
      .prepare(
        `update ${table} set verifications = verifications + ${grant}, last_verifications_grant = ${grant}
        where ${where} and verifications < @limit returning verifications, last_verifications_grant`,
      )
      .raw(true),
    grantBulk: connection.prepare(
      `update ${table} set bulk_requests = bulk_requests + 1 where ${where} and bulk_requests < @limit
       returning bulk_requests`,
    ),
    ensure: connection.prepare(
      `insert into ${table} (${idColumn}, month, verifications, bulk_requests, last_verifications_grant)
       values (@id, @month, 0, 0, 0) on conflict do nothing`,
    ),
    read: connection.prepare(`select verifications, bulk_requests from ${table} where ${where}`),
    takeBack: {
      verifications: connection.prepare(
        `update ${table} set verifications = case when verifications > @count then verifications - @count else 0 end where ${where}`,
      ),
      bulk_requests: connection.prepare(
        `update ${table} set bulk_requests = case when bulk_requests > @count then bulk_requests - @count else 0 end where ${where}`,
      ),
    },
  };
}

type TableStatements = ReturnType<typeof tableStatements>;

/** Charges on the key's and the account's rows, synchronously. */
export class SqliteCharges {
  readonly #key: TableStatements;
  readonly #account: TableStatements;

  constructor(connection: Database.Database) {
    this.#key = tableStatements(connection, 'usage', 'api_key_id');
    this.#account = tableStatements(connection, 'account_usage', 'account_id');
  }

  verifications(owner: UsageOwner, month: UsageMonth, requested: number, ceiling: Ceiling) {
    if (requested === 0 || ceiling.account === 0 || ceiling.key === 0) {
      return { granted: 0, used: this.used(owner, month).verifications };
    }
    const onKey = grantOnce(this.#key, { id: owner.keyId, month, requested, limit: ceiling.key ?? UNCAPPED });
    if (onKey === undefined) return { granted: 0, used: this.used(owner, month).verifications };
    const onAccount = grantOnce(this.#account, {
      id: owner.accountId,
      month,
      requested: onKey.last_verifications_grant,
      limit: ceiling.account,
    });
    const granted = onAccount?.last_verifications_grant ?? 0;
    const refused = onKey.last_verifications_grant - granted;
    if (refused > 0) this.#key.takeBack.verifications.run({ id: owner.keyId, month, count: refused });
    const account = onAccount?.verifications ?? read(this.#account, owner.accountId, month).verifications;
    return { granted, used: { account, key: onKey.verifications - refused } };
  }

  bulkRequest(owner: UsageOwner, month: UsageMonth, ceiling: Ceiling): { granted: boolean; used: Used } {
    const onKey =
      ceiling.account > 0
        ? grantBulkOnce(this.#key, { id: owner.keyId, month, limit: ceiling.key ?? UNCAPPED })
        : false;
    const onAccount =
      onKey && grantBulkOnce(this.#account, { id: owner.accountId, month, limit: ceiling.account });
    if (onKey && !onAccount) this.#key.takeBack.bulk_requests.run({ id: owner.keyId, month, count: 1 });
    return { granted: onAccount, used: this.used(owner, month).bulkRequests };
  }

  /** The month's counts of both rows. */
  used(owner: UsageOwner, month: UsageMonth): { verifications: Used; bulkRequests: Used } {
    const account = read(this.#account, owner.accountId, month);
    const key = read(this.#key, owner.keyId, month);
    return {
      verifications: { account: account.verifications, key: key.verifications },
      bulkRequests: { account: account.bulk_requests, key: key.bulk_requests },
    };
  }
}

type GrantRow = { verifications: number; last_verifications_grant: number };

function grantOnce(
  statements: TableStatements,
  params: { id: string; month: string; requested: number; limit: number },
): GrantRow | undefined {
  let row = statements.grant.get(params) as [number, number] | undefined;
  if (row === undefined) {
    statements.ensure.run({ id: params.id, month: params.month });
    row = statements.grant.get(params) as [number, number] | undefined;
  }
  return row === undefined ? undefined : { verifications: row[0], last_verifications_grant: row[1] };
}

function grantBulkOnce(
  statements: TableStatements,
  params: { id: string; month: string; limit: number },
): boolean {
  if (statements.grantBulk.get(params) !== undefined) return true;
  statements.ensure.run({ id: params.id, month: params.month });
  return statements.grantBulk.get(params) !== undefined;
}

function read(statements: TableStatements, id: string, month: string): Row {
  return (statements.read.get({ id, month }) as Row | undefined) ?? { verifications: 0, bulk_requests: 0 };
}
