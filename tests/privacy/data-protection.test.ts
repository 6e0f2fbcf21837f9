/**
 * Retention, erasure and export through the API, on SQLite and on PostgreSQL (when DATABASE_URL
 * names a server; skipped with its reason otherwise): with the clock moved past an account's
 * retention its finished lists lose their rows (the list stays, its results answer 410); an erased
 * address leaves the account's lists, feedback and the result cache while another account's copy
 * stays; the export is one JSON document of the account's data; each of these changes is one entry
 * of the audit log, the address never written in it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import { expireResults } from '../../src/privacy/retention-task.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { schemaFactory } from '../helpers/postgres-schemas.ts';
import { requirePostgres } from '../helpers/services.ts';
import { finishedList } from './finished-list.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };
const DAY_MS = 24 * 60 * 60 * 1000;

function dataProtectionSuite(
  kind: 'sqlite' | 'postgres',
  databaseUrl: () => Promise<string | undefined>,
): void {
  describe(`retention, erasure and export (${kind})`, () => {
    let t: TestApp;
    let clock = new Date('2030-01-10T12:00:00.000Z');
    let other: { key: string; record: ApiKeyRecord };
    before(async () => {
      const url = await databaseUrl();
      t = await testApp({
        plans: PLANS,
        now: () => clock,
        resultTtlSeconds: 3600,
        env: { ...(url !== undefined && { DATABASE_URL: url, MAILVET_SECRET_KEY: 'ab'.repeat(32) }) },
      });
      other = await t.addKey({ name: 'other account' });
      assert.notEqual(other.record.accountId, t.keyRecord.accountId);
    });
    after(async () => t?.close());

    const api = async (
      method: 'GET' | 'PATCH' | 'DELETE' | 'POST',
      url: string,
      payload?: unknown,
      key = t.key,
    ) => {
      const response = await t.app.inject({
        method,
        url: `/api/v1${url}`,
        headers: t.auth(key),
        ...(payload !== undefined && { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.body === '' ? null : response.json() };
    };
    const auditOf = async (action: string, key = t.key) =>
      (await api('GET', `/audit?action=${action}&limit=100`, undefined, key)).body.entries as Array<{
        target: { type: string; id: string };
        details: Record<string, unknown>;
      }>;

    test('retention_days: shown, set within the plan, 422 above it, recorded', async () => {
      const shown = await api('GET', '/account');
      assert.equal(shown.body.retention_days, 30);
      assert.equal(shown.body.retention_days_setting, null);
      const refused = await api('PATCH', '/account', { retention_days: 31 });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'validation_failed');
      assert.equal((await api('PATCH', '/account', { retention_days: 0 })).status, 422);
      const set = await api('PATCH', '/account', { retention_days: 7 });
      assert.equal(set.status, 200);
      assert.deepEqual(set.body, { retention_days: 7, retention_days_setting: 7 });
      assert.equal((await api('GET', '/account')).body.retention_days, 7);
      const [entry] = await auditOf('account.settings_changed');
      assert.deepEqual(entry?.details, { before: { retention_days: null }, after: { retention_days: 7 } });
    });

    test('a finished list past its retention keeps its record and counts; its results answer 410', async () => {
      const kept = await finishedList(t.store, t.keyRecord, ['keep@multi-mx.test'], clock);
      const old = await finishedList(
        t.store,
        t.keyRecord,
        Array.from({ length: 1200 }, (_, i) => `old${i}@multi-mx.test`),
        new Date(clock.getTime() - 8 * DAY_MS),
      );
      // The other account keeps the default 30 days: its 8-day-old list stays whole.
      const othersList = await finishedList(
        t.store,
        other.record,
        ['o@multi-mx.test'],
        new Date(clock.getTime() - 8 * DAY_MS),
      );
      const expired = await expireResults({
        store: t.store.privacy,
        plans: PLANS,
        defaultDays: 30,
        now: () => clock,
        sliceRows: 100,
      });
      assert.equal(expired, 1);
      const list = await api('GET', `/lists/${old}`);
      assert.equal(list.status, 200);
      assert.equal(list.body.results_expired, true);
      assert.equal(list.body.results_expired_at, clock.toISOString());
      assert.equal(list.body.counts.total, 1200);
      const results = await api('GET', `/lists/${old}/results?format=json`);
      assert.equal(results.status, 410);
      assert.equal(results.body.code, 'results_expired');
      assert.equal((await api('GET', `/lists/${old}/rows`)).status, 410);
      assert.equal((await t.store.lists.resultRows(old, 0, 10)).length, 0);
      assert.equal((await api('GET', `/lists/${kept}/results?format=json`)).status, 200);
      assert.equal(
        (await api('GET', `/lists/${othersList}/results?format=json`, undefined, other.key)).status,
        200,
      );
      assert.equal((await api('GET', `/lists/${kept}`)).body.results_expired, false);
      // Moved forward past the other account's 30 days, its list expires too; a second run finds nothing.
      clock = new Date(clock.getTime() + 30 * DAY_MS);
      const deps = { store: t.store.privacy, plans: PLANS, defaultDays: 30, now: () => clock };
      assert.equal(await expireResults(deps), 2);
      assert.equal(await expireResults(deps), 0);
      assert.equal((await api('GET', `/lists/${othersList}/results`, undefined, other.key)).status, 410);
    });

    test('erasure: the address leaves the lists, feedback and cache of one account only; twice gives zeros', async () => {
      const address = 'Jane.Doe@Multi-MX.test';
      const mine = await finishedList(
        t.store,
        t.keyRecord,
        ['a@multi-mx.test', 'Jane.Doe@multi-mx.test', 'b@multi-mx.test', 'Jane.Doe@MULTI-MX.TEST'],
        clock,
      );
      const theirs = await finishedList(t.store, other.record, ['Jane.Doe@multi-mx.test'], clock);
      for (const key of [t.key, other.key]) {
        const recorded = await api('POST', '/feedback', { email: address, event: 'hard_bounce' }, key);
        assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
      }
      assert.equal((await api('POST', '/verify', { email: address })).status, 200);

      const erased = await api('DELETE', `/addresses/${encodeURIComponent(address)}`);
      assert.equal(erased.status, 200);
      assert.deepEqual(erased.body, { erased: { list_rows: 2, feedback: 1, cached: 1 } });
      const again = await api('DELETE', `/addresses/${encodeURIComponent(address)}`);
      assert.deepEqual(again.body, { erased: { list_rows: 0, feedback: 0, cached: 0 } });

      const rows = (await api('GET', `/lists/${mine}/results?format=json`)).body as Array<{
        row: number;
        email: string;
        result: unknown;
      }>;
      assert.deepEqual(
        rows.map((row) => [row.row, row.email, row.result === null]),
        [
          [1, 'a@multi-mx.test', false],
          [2, '[erased]', true],
          [3, 'b@multi-mx.test', false],
          [4, '[erased]', true],
        ],
      );
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/v1/lists/${mine}/results`,
        headers: t.auth(),
      });
      assert.doesNotMatch(csv.body, /jane/i);
      assert.match(csv.body, /\[erased\]/);
      assert.equal((await api('GET', `/lists/${mine}`)).body.counts.total, 4);
      // The other account's copy is untouched.
      const theirRows = (await api('GET', `/lists/${theirs}/results?format=json`, undefined, other.key)).body;
      assert.equal(theirRows[0].email, 'Jane.Doe@multi-mx.test');
      assert.equal(theirRows[0].result.email, 'Jane.Doe@multi-mx.test');
      const theirExport = (await api('GET', '/account/export', undefined, other.key)).body;
      assert.equal(theirExport.feedback.length, 1);

      const entries = await auditOf('address.erased');
      assert.equal(entries.length, 2);
      assert.match(entries[0]!.target.id, /^addr_[0-9a-f]{64}$/);
      assert.equal(entries[0]!.target.id, entries[1]!.target.id);
      assert.doesNotMatch(JSON.stringify(entries), /jane/i);
      assert.equal((await auditOf('address.erased', other.key)).length, 0);
    });

    test('export: one JSON document of the account, recorded; nothing of another account', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/account/export',
        headers: t.auth(),
      });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const document = response.json();
      assert.equal(document.format, 'mailvet-account-export/1');
      assert.equal(document.account.id, t.keyRecord.accountId);
      assert.equal(document.account.retention_days, 7);
      for (const section of [
        'users',
        'keys',
        'lists',
        'feedback',
        'integrations',
        'runs',
        'schedules',
        'audit_log',
      ])
        assert.ok(Array.isArray(document[section]), section);
      assert.ok(
        document.keys.every((key: Record<string, unknown>) => !('key' in key) && !('key_hash' in key)),
      );
      assert.ok(document.keys.some((key: { prefix: string }) => t.key.startsWith(key.prefix)));
      const expired = document.lists.filter((list: { results_expired: boolean }) => list.results_expired);
      assert.ok(expired.length >= 1 && expired.every((list: { results: unknown }) => list.results === null));
      assert.ok(
        document.lists.some((list: { results: unknown[] | null }) => (list.results?.length ?? 0) > 0),
      );
      assert.doesNotMatch(response.body, /o@multi-mx\.test/);
      assert.ok(document.audit_log.some((entry: { action: string }) => entry.action === 'account.exported'));
      const exported = await auditOf('account.exported');
      assert.equal(exported.length, 1);
      assert.equal(exported[0]!.target.id, t.keyRecord.accountId);
    });
  });
}

dataProtectionSuite('sqlite', async () => undefined);

const postgres = await requirePostgres('PostgreSQL data protection suite');
if (postgres.url === null) {
  test('retention, erasure and export (postgres)', (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  dataProtectionSuite('postgres', async () => (await schemas.create()).url);
}
