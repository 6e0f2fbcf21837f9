/**
 * Upgrading a database made by the previous release, where plans, overrides and usage were each
 * key's: after migration 0007 every key works with the limits it had. A key alone in its account
 * hands its plan and overrides to the account; keys an operator put together keep their own
 * figures as caps while the account holds their sum; this month's usage carries over. On SQLite,
 * and on PostgreSQL when DATABASE_URL is set. The plans in force are a MAILVET_PLANS-like set with
 * a custom plan, as the figures of shared accounts are computed from them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { generateApiKey, hashApiKey } from '../../../src/accounts/api-keys.ts';
import { BUILT_IN_PLANS, effectiveLimits, type Plan } from '../../../src/accounts/plans.ts';
import { migrationProviderFor } from '../../../src/adapters/store/migrations/index.ts';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import { withOwnSchemaIntrospection } from '../../../src/adapters/store/postgres/own-schema-introspection.ts';
import type { DatabaseSchema } from '../../../src/adapters/store/schema.ts';
import { bulkCeiling, keyLimit, meterOfKey, verificationCeiling } from '../../../src/usage/meter.ts';
import { upgradeTests } from './previous-release.ts';

const PREVIOUS_RELEASE = '0006-charge-month';
const NOW = '2026-10-01T00:00:00.000Z';
const MONTH = '2026-11';
const PLANS: Record<string, Plan> = {
  ...BUILT_IN_PLANS,
  agency: { name: 'agency', monthlyVerifications: 40_000, monthlyBulkRequests: 800, ratePerSecond: 30 },
};

interface OldKey {
  id: string;
  key: string;
  account: string;
  plan: string;
  overrides: { monthly_quota: number | null; bulk_quota: number | null; rate_limit: number | null };
  used: number;
}

async function seedPreviousRelease(db: Kysely<DatabaseSchema>, schema?: string): Promise<OldKey[]> {
  const migrator = new Migrator({
    db: schema === undefined ? db : withOwnSchemaIntrospection(db, schema),
    provider: migrationProviderFor(PLANS),
    migrationTableSchema: schema,
  });
  const { error } = await migrator.migrateTo(PREVIOUS_RELEASE);
  if (error) throw error;
  for (const account of ['solo', 'overridden', 'team']) {
    await sql`INSERT INTO accounts (id, name, created_at) VALUES (${account}, ${account}, ${NOW})`.execute(
      db,
    );
  }
  const none = { monthly_quota: null, bulk_quota: null, rate_limit: null };
  const keys: Omit<OldKey, 'id' | 'key'>[] = [
    { account: 'solo', plan: 'starter', overrides: none, used: 120 },
    {
      account: 'overridden',
      plan: 'agency',
      overrides: { monthly_quota: 7_000_000_000, bulk_quota: 3, rate_limit: 9 },
      used: 5,
    },
    { account: 'team', plan: 'free', overrides: none, used: 600 },
    {
      account: 'team',
      plan: 'pro',
      overrides: { monthly_quota: 2_000, bulk_quota: null, rate_limit: 12 },
      used: 1_500,
    },
  ];
  const made: OldKey[] = [];
  for (const [i, spec] of keys.entries()) {
    const generated = generateApiKey();
    const id = randomUUID();
    await sql`INSERT INTO api_keys (id, account_id, name, plan, key_hash, display_prefix, monthly_quota, bulk_quota, rate_limit, created_at)
      VALUES (${id}, ${spec.account}, ${`key ${i}`}, ${spec.plan}, ${generated.keyHash}, ${generated.displayPrefix},
              ${spec.overrides.monthly_quota}, ${spec.overrides.bulk_quota}, ${spec.overrides.rate_limit}, ${NOW})`.execute(
      db,
    );
    await sql`INSERT INTO usage (api_key_id, month, verifications, bulk_requests, last_verifications_grant)
      VALUES (${id}, ${MONTH}, ${spec.used}, 1, 0)`.execute(db);
    made.push({ ...spec, id, key: generated.key });
  }
  return made;
}

async function checkUpgrade(options: StoreOptions, old: OldKey[]): Promise<void> {
  const store = await openStore({ ...options, plans: PLANS });
  try {
    for (const key of old) {
      const record = await store.findApiKeyByHash(hashApiKey(key.key));
      assert.equal(record?.key.id, key.id, 'the key still authenticates');
      const found = await meterOfKey(store, PLANS, key.id);
      assert.ok(found !== null);
      // What the key was held to before: its plan with its overrides.
      const before = effectiveLimits(PLANS, key.plan, {
        monthlyQuota: key.overrides.monthly_quota,
        bulkQuota: key.overrides.bulk_quota,
        rateLimit: key.overrides.rate_limit,
      });
      const { meter } = found;
      const rate =
        meter.caps.rateLimit === null
          ? meter.limits.ratePerSecond
          : Math.min(meter.caps.rateLimit, meter.limits.ratePerSecond);
      assert.deepEqual(
        [keyLimit(verificationCeiling(meter)), keyLimit(bulkCeiling(meter)), rate],
        [before.monthlyVerifications, before.monthlyBulkRequests, before.ratePerSecond],
        `key of ${key.account} on ${key.plan}`,
      );
      const usage = await store.usage(meter, MONTH);
      assert.equal(usage.key.verifications, key.used, "the key's own count is kept");
    }
    const solo = await store.findAccount('solo');
    assert.deepEqual([solo?.plan, solo?.monthlyQuota], ['starter', null]);
    const overridden = await store.findAccount('overridden');
    assert.deepEqual(
      [overridden?.plan, overridden?.monthlyQuota, overridden?.bulkQuota, overridden?.rateLimit],
      ['agency', 7_000_000_000, 3, 9],
    );
    const team = old.filter((key) => key.account === 'team');
    const teamUsage = await store.usage({ accountId: 'team', keyId: team[0]!.id }, MONTH);
    assert.equal(teamUsage.account.verifications, 600 + 1_500, "the account's usage is its keys' sum");
    assert.equal(teamUsage.account.bulkRequests, 2);
    const teamAccount = await store.findAccount('team');
    assert.equal(teamAccount?.monthlyQuota, 1_000 + 2_000, 'a shared account holds its keys’ sum');
  } finally {
    await store.close();
  }
}

describe('migration 0007: plans and usage move to accounts', () =>
  upgradeTests(seedPreviousRelease, checkUpgrade));
