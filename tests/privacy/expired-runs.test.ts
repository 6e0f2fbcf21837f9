/**
 * A run's results are its list's, so they expire with it: once the account's retention deleted the
 * list's rows, the run (alone and in its integration's page of runs) says `results_expired` with
 * the instant, keeps its counts, and its list's results answer 410. On SQLite and on PostgreSQL
 * (when DATABASE_URL names a server; skipped with its reason otherwise).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import type { IntegrationRun } from '../../src/integrations/runs/ports.ts';
import { expireResults } from '../../src/privacy/retention-task.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { schemaFactory } from '../helpers/postgres-schemas.ts';
import { requirePostgres } from '../helpers/services.ts';
import { finishedList } from './finished-list.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };
const DAY_MS = 24 * 60 * 60 * 1000;

function expiredRunsSuite(kind: 'sqlite' | 'postgres', databaseUrl: () => Promise<string | undefined>): void {
  describe(`a run's results expire with its list (${kind})`, () => {
    let t: TestApp;
    let clock = new Date('2030-03-01T12:00:00.000Z');
    before(async () => {
      const url = await databaseUrl();
      t = await testApp({
        plans: PLANS,
        now: () => clock,
        env: { ...(url !== undefined && { DATABASE_URL: url, MAILVET_SECRET_KEY: 'cd'.repeat(32) }) },
      });
    });
    after(async () => t?.close());

    const api = async (url: string, key = t.key) => {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: t.auth(key) });
      return { status: response.statusCode, body: response.json() };
    };

    /** A connected integration with one completed run whose members went to a finished list. */
    async function completedRun(): Promise<{ integrationId: string; run: IntegrationRun }> {
      const accountId = t.keyRecord.accountId;
      const integrationId = `int_${randomUUID().replaceAll('-', '')}`;
      await t.store.integrations.createIntegration({
        id: integrationId,
        accountId,
        provider: 'mailchimp',
        accountName: 'Expiring Shop',
        providerAccountId: 'acc1',
        dc: 'us21',
        state: 'connected',
        message: null,
        authKind: 'api_key',
        sealedCredential: 'v1.never-opened',
        createdAt: clock.toISOString(),
      });
      const listId = await finishedList(t.store, t.keyRecord, ['a@multi-mx.test', 'b@multi-mx.test'], clock);
      const at = clock.toISOString();
      const run: IntegrationRun = {
        id: `run_${randomUUID().replaceAll('-', '')}`,
        accountId,
        integrationId,
        audienceId: 'aud1',
        audienceName: 'Customers',
        statuses: ['subscribed'],
        scope: 'all',
        staleDays: 90,
        writeBack: null,
        trigger: 'manual',
        scheduleId: null,
        state: 'completed',
        listId,
        changedSince: null,
        readAt: at,
        members: 2,
        written: 0,
        writeErrors: 0,
        writeCursor: 2,
        pendingJobs: [],
        categories: { verified: 2, valid: 2, risky: 0, invalid: 0 },
        message: null,
        createdAt: at,
        updatedAt: at,
        startedAt: at,
        finishedAt: at,
      };
      assert.notEqual(await t.store.runs.createRun(run), null);
      // A run is created queued and moved on by its worker: its list and counts come with the moves.
      const moved = await t.store.runs.updateRun(run.id, ['completed'], 'completed', at, {
        listId,
        members: run.members,
        writeCursor: run.writeCursor,
        categories: run.categories,
        readAt: at,
        startedAt: at,
        finishedAt: at,
      });
      assert.equal(moved, true);
      return { integrationId, run };
    }

    test('kept: the run offers its results; expired: it says so, with its counts, and the list answers 410', async () => {
      const { integrationId, run } = await completedRun();
      const path = `/integrations/${integrationId}/runs/${run.id}`;
      const kept = await api(path);
      assert.equal(kept.status, 200, JSON.stringify(kept.body));
      assert.equal(kept.body.results_expired, false);
      assert.equal(kept.body.results_expired_at, null);
      assert.equal((await api(`/lists/${run.listId}/results?format=json`)).status, 200);

      clock = new Date(clock.getTime() + 31 * DAY_MS);
      const expired = await expireResults({
        store: t.store.privacy,
        plans: PLANS,
        defaultDays: 30,
        now: () => clock,
      });
      assert.equal(expired, 1);

      const shown = await api(path);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.results_expired, true);
      assert.equal(shown.body.results_expired_at, clock.toISOString());
      assert.equal(shown.body.list_id, run.listId, 'the list record stays');
      assert.deepEqual(shown.body.counts, {
        members: 2,
        verified: 2,
        written: 0,
        write_errors: 0,
        valid: 2,
        risky: 0,
        invalid: 0,
      });
      const [listed] = (await api(`/integrations/${integrationId}/runs`)).body.runs;
      assert.equal(listed.id, run.id);
      assert.equal(listed.results_expired, true);
      assert.equal(listed.results_expired_at, clock.toISOString());
      const gone = await api(`/lists/${run.listId}/results?format=json`);
      assert.equal(gone.status, 410);
      assert.equal(gone.body.code, 'results_expired');

      // Another account sees no such run.
      const stranger = await t.addKey({ name: 'stranger' });
      assert.equal((await api(path, stranger.key)).status, 404);
    });
  });
}

expiredRunsSuite('sqlite', async () => undefined);

const postgres = await requirePostgres('PostgreSQL expired runs suite');
if (postgres.url === null) {
  test("a run's results expire with its list (postgres)", (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  expiredRunsSuite('postgres', async () => (await schemas.create()).url);
}
