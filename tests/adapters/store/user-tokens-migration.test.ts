/**
 * Upgrading a database of the release before account mail (migration 0014): every user it had
 * counts as confirmed (at their creation), so no existing account is stopped from verifying when
 * the operator sets up a mail relay; links can be stored and taken at once. On SQLite, and on
 * PostgreSQL when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { migrateToRelease, upgradeTests } from './previous-release.ts';

const PREVIOUS_RELEASE = '0013-campaign-checks';
const CREATED = '2026-03-04T05:06:07.089Z';

async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<void> {
  await migrateToRelease(db, PREVIOUS_RELEASE, schema);
  await sql`INSERT INTO accounts (id, name, created_at) VALUES ('acct', 'Before', ${CREATED})`.execute(db);
  await sql`INSERT INTO users (id, account_id, email, password_hash, created_at)
    VALUES ('user-1', 'acct', 'before@example.com', 'h', ${CREATED})`.execute(db);
}

async function checkUpgrade(options: StoreOptions): Promise<void> {
  const store = await openStore({ ...options, plans: BUILT_IN_PLANS });
  try {
    const user = await store.users.findUserByEmail('before@example.com');
    assert.equal(user?.emailConfirmedAt, CREATED, 'confirmed at its creation');
    await store.users.createUserToken({
      userId: 'user-1',
      purpose: 'reset_password',
      tokenHash: 'hash',
      createdAt: CREATED,
      expiresAt: '2026-03-04T06:06:07.089Z',
    });
    assert.equal(await store.users.takeUserToken('hash', 'reset_password', CREATED), 'user-1');
  } finally {
    await store.close();
  }
}

describe('migration 0014: users made before account mail are confirmed', () =>
  upgradeTests(seedPreviousRelease, checkUpgrade));
