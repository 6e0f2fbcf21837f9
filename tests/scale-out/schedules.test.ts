/**
 * Scale-out: two `mailvet worker` processes on one PostgreSQL schema and one Redis start together,
 * with a backlog of schedules whose slots passed while nothing ran. Each schedule's missed slots
 * start exactly one run between them (one firing logged across both processes, no slot found
 * busy), and each next slot is counted from now. Needs DATABASE_URL and REDIS_URL; skips without
 * them, except under CI.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Services } from '../../src/container/index.ts';
import { createLogger, LOG_BATCH_MS } from '../../src/container/logger.ts';
import type { Schedule } from '../../src/integrations/schedules/ports.ts';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';
import { schemaFactory, secretKey, spawnWorker, type WorkerProcess } from './processes.ts';

const postgres = await requirePostgres('scale-out schedule suite');
const redis = await requireRedis('scale-out schedule suite');

/** Schedules in the backlog: enough that the two processes' first passes overlap. */
const SCHEDULES = 16;

if (postgres.url === null || redis.url === null) {
  test('two workers start one run per due schedule slot', (t) =>
    t.skip(postgres.skipReason ?? redis.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  let emulator: MailchimpEmulator;
  let seeding: Services;
  let env: Record<string, string>;
  let workers: WorkerProcess[] = [];

  before(async () => {
    emulator = await startMailchimpEmulator();
    env = {
      DATABASE_URL: (await schemas.create()).url,
      MAILVET_SECRET_KEY: secretKey(),
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    };
    // The test's own services only write the store (no Redis: it queues nothing).
    seeding = await createServices(loadConfig(env), { log: createLogger(false) });
  });
  after(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await seeding?.close();
    await emulator?.close();
    await schemas.dropAll();
  });

  test('two workers starting at once start one run per missed slot', async () => {
    const shop = emulator.addAccount({ name: 'Scaled Shop' });
    const accountId = (await seeding.store.createAccount({ name: 'Owner', plan: 'pro' })).id;
    const integrationId = (await seeding.integrations.connectWithApiKey(accountId, 'mailchimp', shop.apiKey))
      .id;
    const made: Schedule[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const audience = emulator.addAudience(shop, { name: `Audience ${i}` });
      const outcome = await seeding.schedules.create(accountId, integrationId, {
        audienceId: audience.id,
        cron: '0 3 * * *',
        timezone: 'Europe/Paris',
        scope: 'all',
        staleDays: 90,
        statuses: ['subscribed'],
        writeBack: null,
      });
      assert.equal(outcome.kind, 'ok');
      const { schedule } = outcome as { schedule: Schedule };
      // Its slots passed while no process ran: due since a week ago.
      const due = new Date(Date.now() - 7 * 24 * 3600_000 + i * 1000).toISOString();
      await seeding.store.schedules.updateSchedule(accountId, integrationId, schedule.id, { nextRunAt: due });
      made.push(schedule);
    }

    const started = Date.now();
    workers = await Promise.all([
      spawnWorker({ ...env, REDIS_URL: redis.url! }),
      spawnWorker({ ...env, REDIS_URL: redis.url! }),
    ]);
    // Both run the task at start; wait until every schedule has fired (a bound, not a timing).
    const fired = async () =>
      (await seeding.schedules.list(accountId, integrationId))!.filter(
        (schedule) => schedule.lastRunAt !== null,
      );
    for (let i = 0; i < 300 && (await fired()).length < SCHEDULES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A graceful stop waits for the tasks in flight: every claim either process made is in by then.
    await Promise.all(workers.map((worker) => worker.stop()));

    const after = await seeding.schedules.list(accountId, integrationId);
    assert.equal(after?.length, SCHEDULES);
    const runs = await seeding.store.runs.listRuns(accountId, integrationId, 500);
    for (const schedule of after!) {
      const mine = runs.filter((run) => run.scheduleId === schedule.id);
      assert.equal(mine.length, 1, `schedule ${schedule.id}: ${mine.length} runs`);
      assert.equal(mine[0]!.trigger, 'schedule');
      assert.equal(schedule.lastRunId, mine[0]!.id);
      assert.equal(schedule.lastError, null, 'no second firing found its audience busy');
      assert.ok(Date.parse(schedule.nextRunAt!) > started, 'the next slot is counted from now');
    }
    // Standard output's lines come in batches, up to LOG_BATCH_MS late: give the last ones time.
    await new Promise((resolve) => setTimeout(resolve, 2 * LOG_BATCH_MS));
    const firings = workers.flatMap((worker) =>
      worker.lines.filter((line) => line.includes('"msg":"scheduled run')).map((line) => JSON.parse(line)),
    );
    assert.equal(firings.length, SCHEDULES, 'one firing per schedule across both processes');
    assert.equal(new Set(firings.map((firing) => firing.scheduleId)).size, SCHEDULES);
  });
}
