/**
 * A HubSpot run survives `kill -9`: the process working on it is killed while its list is being
 * verified, and again while its results are being written (HubSpot answers slowly then). Each
 * restart takes the run up from the store: the list is read once, every address charged once,
 * every contact ends with its own properties. Embedded (SQLite, the server is killed) and
 * scale-out (PostgreSQL + Redis, a BullMQ worker is killed). HubSpot's batch updates are
 * synchronous: a batch whose answer was lost in the kill is sent again with the same values.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { verificationsChargedIn } from '../helpers/usage.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact, addList } from '../hubspot/state.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import {
  createKey,
  type ServeProcess,
  schemaFactory,
  spawnServe,
  spawnWorker,
  type WorkerProcess,
} from '../scale-out/processes.ts';

let world: MailWorld;
let emulator: HubSpotEmulator;
let nextPortal = 7_000_001;
before(async () => {
  world = await startMailWorld();
  emulator = await startHubSpotEmulator();
});
after(async () => {
  await world?.close();
  await emulator?.close();
});

const CONTACTS = 240;

interface Mode {
  env: Record<string, string>;
  api: ServeProcess;
  startRunner(): Promise<WorkerProcess>;
  charged(keyId: string): Promise<number>;
}

function commonEnv(): Record<string, string> {
  return {
    ...world.env,
    MAILVET_RESULT_TTL: '0',
    MAILVET_LIST_SWEEP_MS: '300',
    MAILVET_LIST_RECHECK_MS: '5000',
    MAILVET_SMTP_PROBE_TIMEOUT_MS: '5000',
    MAILVET_RUN_POLL_MS: '100',
    MAILVET_JOB_LOCK_MS: '2000',
    MAILVET_SECRET_KEY: 'cd'.repeat(32),
    MAILVET_HUBSPOT_BASE_URL: emulator.origin,
  };
}

async function killTwiceAndResume(makeMode: (env: Record<string, string>) => Promise<Mode>): Promise<void> {
  const { portal, token } = emulator.addPortal(nextPortal++);
  const domain = world.domains['reply-delay'];
  const ids = [];
  for (let i = 1; i <= CONTACTS; i++) ids.push(addContact(portal, `user${i}@${domain}`).id);
  const list = addList(portal, 'Killed list', ids);
  const mode = await makeMode(commonEnv());
  const { id: keyId, key } = await createKey(
    'hubspot kill',
    ['--plan', 'pro', '--rate-limit', '1000'],
    mode.env,
  );
  let runner = await mode.startRunner();
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${mode.api.url}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const connected = await api('POST', '/integrations', { provider: 'hubspot', api_key: token });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const integrationId = connected.body.id as string;
    const runOf = async (runId: string) =>
      (await api('GET', `/integrations/${integrationId}/runs/${runId}`)).body as {
        state: string;
        list_id: string | null;
        counts: Record<string, number>;
      };
    const waitFor = async (runId: string, done: (run: Awaited<ReturnType<typeof runOf>>) => boolean) => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const run = await runOf(runId);
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`hang guard: run ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: list.listId });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const runId = started.body.id as string;

    const verifying = await waitFor(runId, (run) => run.state === 'verifying' && run.list_id !== null);
    for (let i = 0; ; i++) {
      const progress = (await api('GET', `/lists/${verifying.list_id}`)).body as {
        counts: { processed: number };
      };
      if (progress.counts.processed >= 20) {
        assert.ok(progress.counts.processed < CONTACTS, 'killed mid-list');
        break;
      }
      assert.ok(i < 4500, 'hang guard: the list makes progress');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await runner.kill();
    // HubSpot answers slowly: the second kill lands while results are being written.
    emulator.latencyMs = 400;
    runner = await mode.startRunner();
    await waitFor(runId, (run) => run.state === 'writing');
    await runner.kill();
    emulator.latencyMs = 0;
    runner = await mode.startRunner();

    const run = await waitFor(runId, (each) => ['completed', 'failed', 'cancelled'].includes(each.state));
    assert.equal(run.state, 'completed', JSON.stringify(run));
    assert.equal(run.list_id, verifying.list_id, 'one list: the contacts were not read again');
    assert.deepEqual(
      { members: run.counts.members, verified: run.counts.verified, written: run.counts.written },
      { members: CONTACTS, verified: CONTACTS, written: CONTACTS },
    );
    const lists = (await api('GET', '/lists')).body as { lists: Array<{ id: string }> };
    assert.deepEqual(
      lists.lists.map((each) => each.id),
      [run.list_id],
    );
    const byEmail = new Map(
      [...portal.contacts.values()].map((contact) => [contact.properties.email, contact]),
    );
    assert.equal(byEmail.get(`user1@${domain}`)!.properties.mailvet_status, 'VALID');
    assert.equal(byEmail.get(`user200@${domain}`)!.properties.mailvet_category, 'invalid');
    for (const contact of portal.contacts.values()) assert.ok(contact.properties.mailvet_status, contact.id);
    assert.equal(await mode.charged(keyId), CONTACTS, 'every address charged once, across both crashes');
  } finally {
    await runner.stop();
    await mode.api.stop();
  }
}

describe('embedded (SQLite, in-process worker)', () => {
  test('kill -9 of the server while verifying and while writing: each contact read, charged and written', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-hubspot-kill-'));
    try {
      await killTwiceAndResume(async (common) => {
        const env = { ...common, MAILVET_DATA_DIR: dataDir };
        let current: ServeProcess | undefined;
        return {
          env,
          get api() {
            return current!;
          },
          async startRunner() {
            current = await spawnServe(env);
            return current;
          },
          charged: (keyId) => verificationsChargedIn({ dataDir }, keyId),
        };
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

const postgres = await requirePostgres('HubSpot run kill -9 suite (scale-out)');
const redis = await requireRedis('HubSpot run kill -9 suite (scale-out)');

describe('scale-out (PostgreSQL, Redis, BullMQ workers)', () => {
  if (postgres.url === null || redis.url === null) {
    test('kill -9 of a worker', (t) => t.skip(postgres.skipReason ?? redis.skipReason));
    return;
  }
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());

  test('kill -9 of the worker while verifying and while writing: a new worker takes the run over', async () => {
    const databaseUrl = (await schemas.create()).url;
    await killTwiceAndResume(async (common) => {
      const env = { ...common, DATABASE_URL: databaseUrl, REDIS_URL: redis.url! };
      const api = await spawnServe(env);
      return {
        env,
        api,
        startRunner: () => spawnWorker(env),
        charged: (keyId) => verificationsChargedIn({ databaseUrl }, keyId),
      };
    });
  });
});
