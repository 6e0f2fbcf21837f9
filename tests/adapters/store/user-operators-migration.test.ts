/**
 * Upgrading to operators marked on users (migration 0015): the users whose address MAILVET_OPERATORS
 * named when the upgrade runs are marked operators, once, whatever the case the variable was
 * written in; nobody else is, and a user made after the upgrade is not an operator because of the
 * variable. On SQLite, and on PostgreSQL when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { migrateToRelease, upgradeTests } from './previous-release.ts';

const PREVIOUS_RELEASE = '0014-user-tokens';
const CREATED = '2026-03-04T05:06:07.089Z';
const OPERATORS = ['OPS@example.com', ' second@Example.com ', 'late@example.com'];

async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<void> {
  await migrateToRelease(db, PREVIOUS_RELEASE, schema);
  await sql`INSERT INTO accounts (id, name, created_at) VALUES ('acct', 'Before', ${CREATED})`.execute(db);
  for (const [id, email] of [
    ['u-ops', 'ops@example.com'],
    ['u-second', 'second@example.com'],
    ['u-other', 'other@example.com'],
  ]) {
    await sql`INSERT INTO users (id, account_id, email, password_hash, created_at, email_confirmed_at)
      VALUES (${id}, 'acct', ${email}, 'h', ${CREATED}, ${CREATED})`.execute(db);
  }
}

async function checkUpgrade(options: StoreOptions): Promise<void> {
  const store = await openStore({ ...options, plans: BUILT_IN_PLANS, operators: OPERATORS });
  try {
    // Made at one instant: listed by id.
    const marked = (await store.users.listUsers()).map((user) => [user.id, user.operator]);
    assert.deepEqual(marked, [
      ['u-ops', true],
      ['u-other', false],
      ['u-second', true],
    ]);
    // After the upgrade the variable grants nothing: a user of a listed address made later is not one.
    const late = await store.users.createUser({
      accountId: 'acct',
      email: 'late@example.com',
      passwordHash: 'h',
    });
    assert.equal(late?.operator, false);
    assert.equal((await store.users.setOperator('u-other', true))?.operator, true);
    assert.equal((await store.users.setOperator('u-ops', false))?.operator, false);
    assert.equal(await store.users.setOperator('nobody', true), null);
  } finally {
    await store.close();
  }
  // Opening it again with the variable still set changes nobody: the marking ran once.
  const again = await openStore({ ...options, plans: BUILT_IN_PLANS, operators: OPERATORS });
  try {
    const ops = await again.users.findUserByEmail('ops@example.com');
    assert.equal(ops?.operator, false);
    assert.equal((await again.users.findUserByEmail('late@example.com'))?.operator, false);
  } finally {
    await again.close();
  }
}

describe('migration 0015: the users MAILVET_OPERATORS named are marked operators, once', () =>
  upgradeTests(seedPreviousRelease, checkUpgrade));
