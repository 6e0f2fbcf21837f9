/**
 * Upgrading a database made by the previous release, where every CLI key shared the `default`
 * account: after the migration each of those keys has an account of its own and its lists moved
 * with it, keys an operator put together in another account still share it, and every key still
 * authenticates (same hash, same id). On SQLite, and on PostgreSQL when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { generateApiKey, hashApiKey } from '../../../src/accounts/api-keys.ts';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { withOwnSchemaIntrospection } from '../../../src/adapters/store/postgres/own-schema-introspection.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { upgradeTests } from './previous-release.ts';

const PREVIOUS_RELEASE = '0002-list-jobs';
const NOW = '2026-10-01T00:00:00.000Z';

interface OldData {
  keys: Record<'alice' | 'bob' | 'teamA' | 'teamB', { id: string; key: string }>;
  lists: Record<'alice' | 'bob' | 'team', string>;
}

/**
 * The previous release's schema with its data: two CLI keys in `default`, two in a shared account.
 * On PostgreSQL (`schema` given) the Migrator looks at that schema alone, as the store's does:
 * Kysely's own introspector scans every schema and fails when another test drops one meanwhile.
 */
async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<OldData> {
  const migrator = new Migrator({
    db: schema === undefined ? db : withOwnSchemaIntrospection(db, schema),
    provider: migrationProvider,
    migrationTableSchema: schema,
  });
  const { error } = await migrator.migrateTo(PREVIOUS_RELEASE);
  if (error) throw error;
  await sql`INSERT INTO accounts (id, name, created_at) VALUES ('default', 'Default', ${NOW}), ('team', 'Team', ${NOW})`.execute(
    db,
  );
  const key = async (name: string, account: string) => {
    const generated = generateApiKey();
    const id = randomUUID();
    await sql`INSERT INTO api_keys (id, account_id, name, plan, key_hash, display_prefix, created_at)
      VALUES (${id}, ${account}, ${name}, 'free', ${generated.keyHash}, ${generated.displayPrefix}, ${NOW})`.execute(
      db,
    );
    return { id, key: generated.key };
  };
  const keys = {
    alice: await key('alice', 'default'),
    bob: await key('bob', 'default'),
    teamA: await key('team a', 'team'),
    teamB: await key('team b', 'team'),
  };
  const list = async (account: string, keyId: string) => {
    const id = `lst_${randomBytes(8).toString('hex')}`;
    await sql`INSERT INTO lists (id, account_id, api_key_id, name, state, source, created_at, updated_at)
      VALUES (${id}, ${account}, ${keyId}, 'old list', 'completed', 'json', ${NOW}, ${NOW})`.execute(db);
    return id;
  };
  const lists = {
    alice: await list('default', keys.alice.id),
    bob: await list('default', keys.bob.id),
    team: await list('team', keys.teamA.id),
  };
  return { keys, lists };
}

async function checkUpgrade(options: StoreOptions, old: OldData): Promise<void> {
  const store = await openStore(options);
  try {
    const byKey = async (key: string) => {
      const found = await store.findApiKeyByHash(hashApiKey(key));
      assert.ok(found, 'the key still authenticates');
      assert.equal(found.account.id, found.key.accountId);
      return found.key;
    };
    const alice = await byKey(old.keys.alice.key);
    const bob = await byKey(old.keys.bob.key);
    const teamA = await byKey(old.keys.teamA.key);
    const teamB = await byKey(old.keys.teamB.key);
    assert.equal(alice.id, old.keys.alice.id);
    assert.notEqual(alice.accountId, 'default');
    assert.notEqual(bob.accountId, 'default');
    assert.notEqual(alice.accountId, bob.accountId);
    assert.equal((await store.findAccount(alice.accountId))?.name, 'alice');
    assert.equal(teamA.accountId, 'team');
    assert.equal(teamB.accountId, 'team');
    assert.equal(await store.findAccount('default'), null);

    assert.ok(await store.lists.getList(old.lists.alice, alice.accountId));
    assert.equal(await store.lists.getList(old.lists.alice, bob.accountId), null);
    assert.ok(await store.lists.getList(old.lists.bob, bob.accountId));
    assert.ok(await store.lists.getList(old.lists.team, 'team'));
  } finally {
    await store.close();
  }
}

describe('migration 0003: an account per key', () => upgradeTests(seedPreviousRelease, checkUpgrade));
