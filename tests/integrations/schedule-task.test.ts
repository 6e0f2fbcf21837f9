/**
 * The schedules' periodic task on a fake clock, over the services the composition
 * root wires (SQLite, the real run service, Mailchimp emulated; no worker consumes the runs, so a
 * started run stays queued and keeps its audience busy). A due schedule starts one run with
 * trigger "schedule"; a slot missed for days runs once; a busy audience or a disconnected
 * integration spends the slot and says why in `last_error` without stopping the others; two tasks
 * at once start one run; paused and removed schedules start nothing; schedules outlive a restart.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Services } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';
import type { Schedule } from '../../src/integrations/schedules/ports.ts';
import type { ScheduleRequest } from '../../src/integrations/schedules/schedule-service.ts';
import { scheduleTask } from '../../src/integrations/schedules/schedule-task.ts';
import type { PeriodicTask } from '../../src/jobs/periodic-tasks.ts';
import {
  type EmulatedAccount,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let dataDir: string;
let services: Services;
let shop: EmulatedAccount;
let accountId: string;
let integrationId: string;
/** The services' clock, moved by the tests. */
let clock = new Date('2026-03-02T12:00:00.000Z');
let logs: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];

const open = () =>
  createServices(
    loadConfig({
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    }),
    {
      log: createLogger(false),
      verifier: { verify: () => Promise.reject(new Error('no verification in these tests')) },
      now: () => clock,
    },
  );

const taskOf = (on: Services): PeriodicTask =>
  scheduleTask({
    store: on.store.schedules,
    runs: on.runs,
    now: () => clock,
    log: (_level, message, fields) => logs.push({ message, fields }),
  });

before(async () => {
  emulator = await startMailchimpEmulator();
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-schedule-task-'));
  services = await open();
  shop = emulator.addAccount({ name: 'Scheduled Shop' });
  accountId = (await services.store.createAccount({ name: 'Shop owner', plan: 'free' })).id;
  integrationId = (await services.integrations.connectWithApiKey(accountId, 'mailchimp', shop.apiKey)).id;
});
after(async () => {
  await services?.close();
  await emulator?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** A schedule of a new audience of `on` (its own, so that runs of other tests never make it busy). */
async function scheduleOn(
  on: { accountId: string; integrationId: string; account: EmulatedAccount },
  request: Partial<ScheduleRequest> = {},
): Promise<Schedule> {
  const audience = emulator.addAudience(on.account, { name: `Audience ${Math.random()}` });
  const outcome = await services.schedules.create(on.accountId, on.integrationId, {
    audienceId: audience.id,
    cron: '0 3 * * *',
    timezone: 'UTC',
    scope: 'all',
    staleDays: 90,
    statuses: ['subscribed'],
    writeBack: { fields: true, tags: true, segments: false, unsubscribeInvalid: false },
    ...request,
  });
  assert.equal(outcome.kind, 'ok');
  return (outcome as { schedule: Schedule }).schedule;
}

const schedule = (request: Partial<ScheduleRequest> = {}) =>
  scheduleOn({ accountId, integrationId, account: shop }, request);

const reread = async (id: string, on = services) =>
  (await on.store.schedules.findSchedule(accountId, integrationId, id))!;

/** Runs the schedule started, oldest first. */
const runsOf = async (scheduleId: string, on = services) =>
  (await on.store.runs.listRuns(accountId, integrationId, 500))
    .filter((run) => run.scheduleId === scheduleId)
    .reverse();

test('the task runs at start, then every 15 s', () => {
  const task = taskOf(services);
  assert.equal(task.runAtStart, true);
  assert.equal(task.everyMs, 15_000);
});

test('a due schedule starts one run with trigger "schedule", and its next slot moves on', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({
    cron: '0 3 * * *',
    scope: 'stale',
    staleDays: 30,
    statuses: ['subscribed', 'pending'],
  });
  assert.equal(made.nextRunAt, '2026-03-03T03:00:00.000Z');
  const task = taskOf(services);

  clock = new Date('2026-03-03T02:59:59.000Z');
  await task.run();
  assert.deepEqual(await runsOf(made.id), [], 'not due yet');

  clock = new Date('2026-03-03T03:00:07.000Z');
  await task.run();
  const [run, ...more] = await runsOf(made.id);
  assert.ok(run, 'a run started');
  assert.deepEqual(more, []);
  assert.deepEqual(
    [run.trigger, run.scheduleId, run.audienceId, run.scope, run.staleDays, run.statuses, run.writeBack],
    ['schedule', made.id, made.audienceId, 'stale', 30, ['subscribed', 'pending'], made.writeBack],
  );
  const after = await reread(made.id);
  assert.deepEqual(
    [after.lastRunId, after.lastRunAt, after.lastError, after.nextRunAt],
    [run.id, '2026-03-03T03:00:07.000Z', null, '2026-03-04T03:00:00.000Z'],
  );

  await task.run();
  assert.equal((await runsOf(made.id)).length, 1, 'the slot is spent');
});

test('a slot missed for days runs once, and the next one is counted from now', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({ cron: '0 * * * *' });
  assert.equal(made.nextRunAt, '2026-03-02T13:00:00.000Z');
  // Down for five days: 120 hourly slots passed.
  clock = new Date('2026-03-07T12:30:00.000Z');
  const task = taskOf(services);
  await task.run();
  await task.run();
  assert.equal((await runsOf(made.id)).length, 1);
  const after = await reread(made.id);
  assert.equal(after.nextRunAt, '2026-03-07T13:00:00.000Z');
  assert.equal(after.lastError, null);
});

test('a busy audience spends the slot, and last_error says why', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({ cron: '30 12 * * *' });
  const manual = await services.runs.start(accountId, integrationId, {
    audienceId: made.audienceId,
    statuses: ['subscribed'],
    scope: 'all',
    staleDays: 90,
    writeBack: null,
  });
  assert.equal(manual.kind, 'ok');
  clock = new Date('2026-03-02T12:30:01.000Z');
  await taskOf(services).run();
  assert.deepEqual(await runsOf(made.id), []);
  const after = await reread(made.id);
  assert.equal(after.lastRunId, null);
  assert.equal(after.lastRunAt, '2026-03-02T12:30:01.000Z');
  assert.match(after.lastError ?? '', /had a run going/);
  assert.equal(after.nextRunAt, '2026-03-03T12:30:00.000Z', 'the next slot, not this one again');
});

test('a disconnected integration records why, and the other due schedules still start', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const revoked = emulator.addAccount({ name: 'Revoked Shop' });
  const other = {
    accountId,
    integrationId: (await services.integrations.connectWithApiKey(accountId, 'mailchimp', revoked.apiKey)).id,
    account: revoked,
  };
  // The failing one is due first.
  const failing = await scheduleOn(other, { cron: '0 13 * * *' });
  const healthy = await schedule({ cron: '1 13 * * *' });
  emulator.revokeKey(revoked);
  clock = new Date('2026-03-02T13:05:00.000Z');
  await taskOf(services).run();
  const failed = (await services.store.schedules.findSchedule(accountId, other.integrationId, failing.id))!;
  assert.equal(failed.lastRunId, null);
  assert.match(failed.lastError ?? '', /connect/i);
  assert.equal(failed.nextRunAt, '2026-03-03T13:00:00.000Z');
  assert.equal((await runsOf(healthy.id)).length, 1, 'the other schedule started its run');
  assert.equal((await reread(healthy.id)).lastError, null);
});

test('two tasks at once (two processes) claim a slot once: one firing, one run', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({ cron: '0 14 * * *' });
  clock = new Date('2026-03-02T14:00:00.000Z');
  logs = [];
  await Promise.all([taskOf(services).run(), taskOf(services).run(), taskOf(services).run()]);
  assert.equal((await runsOf(made.id)).length, 1);
  assert.equal(
    logs.filter((entry) => entry.fields?.scheduleId === made.id).length,
    1,
    'fired once: no loser tried to start a run (it would have found the audience busy)',
  );
  assert.equal((await reread(made.id)).lastError, null);
});

test('a paused schedule starts nothing; resumed, it counts its next slot from now', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({ cron: '0 15 * * *' });
  await services.schedules.update(accountId, integrationId, made.id, { paused: true });
  clock = new Date('2026-03-04T16:00:00.000Z');
  await taskOf(services).run();
  assert.deepEqual(await runsOf(made.id), []);
  const resumed = await services.schedules.update(accountId, integrationId, made.id, { paused: false });
  assert.equal(resumed.kind === 'ok' && resumed.schedule.nextRunAt, '2026-03-05T15:00:00.000Z');
  await taskOf(services).run();
  assert.deepEqual(await runsOf(made.id), [], 'the slots missed while paused are not made up');
});

test('removing the integration removes its schedules: nothing fires', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const leaving = emulator.addAccount({ name: 'Leaving Shop' });
  const other = {
    accountId,
    integrationId: (await services.integrations.connectWithApiKey(accountId, 'mailchimp', leaving.apiKey)).id,
    account: leaving,
  };
  const made = await scheduleOn(other, { cron: '0 16 * * *' });
  assert.equal(await services.integrations.disconnect(accountId, other.integrationId), true);
  assert.equal(await services.store.schedules.findSchedule(accountId, other.integrationId, made.id), null);
  clock = new Date('2026-03-02T16:00:00.000Z');
  logs = [];
  await taskOf(services).run();
  assert.deepEqual(
    logs.filter((entry) => entry.fields?.scheduleId === made.id),
    [],
  );
});

test('schedules outlive a restart: a slot missed while down runs once at start', async () => {
  clock = new Date('2026-03-02T12:00:00.000Z');
  const made = await schedule({ cron: '0 17 * * *' });
  await services.close();
  // Down for three days.
  clock = new Date('2026-03-05T18:00:00.000Z');
  services = await open();
  const task = taskOf(services);
  assert.equal(task.runAtStart, true);
  await task.run();
  await task.run();
  assert.equal((await runsOf(made.id)).length, 1);
  assert.equal((await reread(made.id)).nextRunAt, '2026-03-06T17:00:00.000Z');
});
