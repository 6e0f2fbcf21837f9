/**
 * Operators are marked on the user (`users.operator`), by the CLI (`mailvet users create
 * --operator`, `mailvet users update ID --operator|--no-operator`). They were the sign-in emails
 * in MAILVET_OPERATORS, which trusted an address that open sign-up never confirmed: anyone could
 * sign up as an operator's address before the operator did. This migration marks, once, the users
 * whose address is in that list when the upgrade runs; after it the variable grants nothing.
 * Portable DDL, as 0001 (an integer 0/1: SQLite has no boolean).
 */
import { type Kysely, type Migration, sql } from 'kysely';

/** The migration, marking the users of `operators` (MAILVET_OPERATORS at upgrade time). */
export function userOperators(operators: readonly string[]): Migration {
  const emails = [
    ...new Set(operators.map((email) => email.trim().toLowerCase()).filter((email) => email !== '')),
  ];
  return {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .alterTable('users')
        .addColumn('operator', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      if (emails.length === 0) return;
      // Users' addresses are stored lower-cased.
      await sql`UPDATE users SET operator = 1 WHERE email IN (${sql.join(emails)})`.execute(db);
    },
    down: async (db: Kysely<unknown>) => {
      await db.schema.alterTable('users').dropColumn('operator').execute();
    },
  };
}
