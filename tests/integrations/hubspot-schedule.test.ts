/**
 * A HubSpot list on a schedule, as a Mailchimp audience is: the schedules' periodic task on a fake
 * clock, over the services the composition root wires (SQLite, the real run service, HubSpot
 * emulated; no worker consumes the runs). A due schedule of a HubSpot list starts one run of that
 * list with trigger "schedule" and the schedule's settings; a schedule of a list the portal does
 * not have is refused when made; another account cannot see the schedule.
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
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';

let emulator: HubSpotEmulator;
let dataDir: string;
let services: Services;
let accountId: string;
let integrationId: string;
let listId: string;
let clock = new Date('2026-03-02T12:00:00.000Z');

before(async () => {
  emulator = await startHubSpotEmulator();
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-hubspot-schedule-'));
  services = await createServices(
    loadConfig({
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_HUBSPOT_BASE_URL: emulator.origin,
    }),
    {
      log: createLogger(false),
      verifier: { verify: () => Promise.reject(new Error('no verification in these tests')) },
      now: () => clock,
    },
  );
  const { portal, token } = emulator.addPortal(7_100_001);
  const contact = addContact(portal, 'user1@accept.test');
  listId = addList(portal, 'Weekly', [contact.id]).listId;
  accountId = (await services.store.createAccount({ name: 'Portal owner', plan: 'free' })).id;
  integrationId = (await services.integrations.connectWithApiKey(accountId, 'hubspot', token)).id;
});
after(async () => {
  await services?.close();
  await emulator?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

const request = (audienceId: string): ScheduleRequest => ({
  audienceId,
  cron: '0 3 * * 1',
  timezone: 'Europe/Paris',
  scope: 'changed',
  staleDays: 90,
  statuses: ['subscribed'],
  writeBack: { fields: true, tags: true, segments: false, unsubscribeInvalid: false },
});

test('a due schedule of a HubSpot list starts one run of that list, with the schedule’s settings', async () => {
  const made = await services.schedules.create(accountId, integrationId, request(listId));
  assert.equal(made.kind, 'ok', JSON.stringify(made));
  const schedule = (made as { schedule: Schedule }).schedule;
  // Monday 03:00 in Paris is 02:00 UTC in March.
  assert.equal(schedule.nextRunAt, '2026-03-09T02:00:00.000Z');
  const task = scheduleTask({
    store: services.store.schedules,
    runs: services.runs,
    now: () => clock,
    log: () => {},
  });

  clock = new Date('2026-03-09T01:59:59.000Z');
  await task.run();
  const runsOf = async () =>
    (await services.store.runs.listRuns(accountId, integrationId, 100)).filter(
      (run) => run.scheduleId === schedule.id,
    );
  assert.deepEqual(await runsOf(), [], 'not due yet');

  clock = new Date('2026-03-09T02:00:05.000Z');
  await task.run();
  await task.run();
  const [run, ...more] = await runsOf();
  assert.ok(run, 'a run started');
  assert.deepEqual(more, [], 'one run for the slot');
  assert.equal(run.trigger, 'schedule');
  assert.equal(run.audienceId, listId);
  assert.equal(run.audienceName, 'Weekly');
  assert.equal(run.scope, 'changed');
  assert.deepEqual(run.statuses, ['subscribed']);
  const reread = await services.store.schedules.findSchedule(accountId, integrationId, schedule.id);
  assert.equal(reread?.nextRunAt, '2026-03-16T02:00:00.000Z');
});

test('a schedule of a list the portal does not have is refused when made', async () => {
  const made = await services.schedules.create(accountId, integrationId, request('999999'));
  assert.notEqual(made.kind, 'ok');
});

test('another account sees no schedule of this integration', async () => {
  const other = (await services.store.createAccount({ name: 'Someone else', plan: 'free' })).id;
  assert.deepEqual(await services.store.schedules.listSchedules(other, integrationId), []);
  const [mine] = await services.store.schedules.listSchedules(accountId, integrationId);
  assert.ok(mine);
  assert.equal(await services.store.schedules.findSchedule(other, integrationId, mine.id), null);
});
