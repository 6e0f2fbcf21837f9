/**
 * A run survives `kill -9`: the process working on it is killed while the run's list is being
 * verified, and again while its write batch is running in Mailchimp. Each restart takes the run up
 * from the store: the audience is read once (one list, its rows once), every address is charged
 * once, and the members are written in one batch, never sent again. Embedded (SQLite, in-process
 * worker: the killed process is the server) and scale-out (PostgreSQL + Redis, BullMQ: the killed
 * process is the worker; a new one takes the job over).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { verificationsChargedIn } from '../helpers/usage.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';
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
let emulator: MailchimpEmulator;
before(async () => {
  world = await startMailWorld();
  emulator = await startMailchimpEmulator();
});
after(async () => {
  await world?.close();
  await emulator?.close();
});

const MEMBERS = 240;

interface Run {
  id: string;
  state: string;
  list_id: string | null;
  counts: Record<string, number>;
  message: string | null;
}

/** How one deployment mode starts the process that works on runs, and reads what the test needs. */
interface Mode {
  env: Record<string, string>;
  /** The API, up for the whole test. */
  api: ServeProcess;
  /** Starts the process that works on runs (the server itself when embedded). */
  startRunner(): Promise<WorkerProcess>;
  /** The run's recorded write jobs, read beside the processes. */
  pendingJobs(runId: string): Promise<string[]>;
  /** The account's verifications this month. */
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
    MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
  };
}

/** Runs the kill-and-resume scenario; `mode` says which process dies. */
async function killTwiceAndResume(
  makeMode: (keyEnv: Record<string, string>) => Promise<Mode>,
): Promise<void> {
  const account = emulator.addAccount({ name: 'Killed Shop' });
  const audience = emulator.addAudience(account, { name: 'Everyone' });
  // The slow host answers every command after a delay: the list runs for seconds.
  const domain = world.domains['reply-delay'];
  for (let i = 1; i <= MEMBERS; i++)
    emulator.addMember(audience, { email: `user${i}@${domain}`, status: 'subscribed' });

  const mode = await makeMode(commonEnv());
  const { id: keyId, key } = await createKey('run kill', ['--plan', 'pro', '--rate-limit', '1000'], mode.env);
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
    const connected = await api('POST', '/integrations', { provider: 'mailchimp', api_key: account.apiKey });
    assert.equal(connected.status, 201);
    const integrationId = connected.body.id as string;
    const waitFor = async (runId: string, done: (run: Run) => boolean): Promise<Run> => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const run = (await api('GET', `/integrations/${integrationId}/runs/${runId}`)).body as unknown as Run;
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`hang guard: run ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(started.status, 202);
    const runId = started.body.id as string;

    // Killed mid-verification: some of its list done, not all.
    const verifying = await waitFor(runId, (run) => run.state === 'verifying' && run.list_id !== null);
    for (let i = 0; ; i++) {
      const list = (await api('GET', `/lists/${verifying.list_id}`)).body as {
        counts: { processed: number };
      };
      if (list.counts.processed >= 20) {
        assert.ok(list.counts.processed < MEMBERS, 'killed mid-list');
        break;
      }
      assert.ok(i < 4500, 'hang guard: the list makes progress');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Mailchimp works slowly on the batch: the second kill lands while it is pending.
    emulator.batchStepMs = 1500;
    await runner.kill();
    runner = await mode.startRunner();

    // Killed once the batch is recorded in the store. (A crash in the instant between Mailchimp
    // accepting a batch and the store recording it sends the batch again: the same values, counted
    // once; docs/integrations/mailchimp.md says so.)
    await waitFor(runId, (run) => run.state === 'writing');
    for (let i = 0; (await mode.pendingJobs(runId)).length !== 1; i++) {
      assert.ok(i < 3000, 'hang guard: the batch is recorded');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(emulator.stats(account).byRoute['POST /batches'], 1);
    await runner.kill();
    emulator.batchStepMs = 1;
    runner = await mode.startRunner();

    const run = await waitFor(runId, (each) => ['completed', 'failed', 'cancelled'].includes(each.state));
    assert.equal(run.state, 'completed', JSON.stringify(run));
    assert.equal(run.list_id, verifying.list_id, 'one list: the audience was not read again');
    assert.deepEqual(
      { members: run.counts.members, verified: run.counts.verified, written: run.counts.written },
      { members: MEMBERS, verified: MEMBERS, written: MEMBERS },
    );
    const lists = (await api('GET', '/lists')).body as { lists: Array<{ id: string }> };
    assert.deepEqual(
      lists.lists.map((list) => list.id),
      [run.list_id],
    );
    const stats = emulator.stats(account);
    assert.equal(stats.byRoute['POST /batches'], 1, 'the batch was submitted once');
    assert.equal(stats.batchOperations, MEMBERS * 2, 'each member written once (fields, tags)');
    assert.equal(emulator.member(audience, `user1@${domain}`)!.mergeFields.MV_STATUS, 'VALID');
    assert.deepEqual(emulator.member(audience, `user200@${domain}`)!.tags, ['mailvet-invalid']);
    assert.equal(await mode.charged(keyId), MEMBERS, 'every address charged once, across both crashes');
  } finally {
    await runner.stop();
    await mode.api.stop();
  }
}

describe('embedded (SQLite, in-process worker)', () => {
  test('kill -9 of the server while verifying and while writing: each member read, charged and written once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-run-kill-'));
    try {
      await killTwiceAndResume(async (common) => {
        const env = { ...common, MAILVET_DATA_DIR: dataDir };
        // The server is the runner: one process, restarted; `api` follows the current one.
        let current: ServeProcess | undefined;
        const mode: Mode = {
          env,
          get api() {
            return current!;
          },
          async startRunner() {
            current = await spawnServe(env);
            return current;
          },
          async pendingJobs(runId) {
            // Read-only, beside the server: opening the store would migrate and could lock it out.
            const reader = new Database(join(dataDir, 'mailvet.db'), { readonly: true });
            try {
              const row = reader
                .prepare('select pending_jobs from integration_runs where id = ?')
                .get(runId) as {
                pending_jobs: string;
              };
              return JSON.parse(row.pending_jobs) as string[];
            } finally {
              reader.close();
            }
          },
          charged: (keyId) => verificationsChargedIn({ dataDir }, keyId),
        };
        return mode;
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

const postgres = await requirePostgres('run kill -9 suite (scale-out)');
const redis = await requireRedis('run kill -9 suite (scale-out)');

describe('scale-out (PostgreSQL, Redis, BullMQ workers)', () => {
  if (postgres.url === null || redis.url === null) {
    test('kill -9 of a worker', (t) => t.skip(postgres.skipReason ?? redis.skipReason));
    return;
  }
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());

  test('kill -9 of the worker while verifying and while writing: a new worker takes the run over, each member once', async () => {
    const databaseUrl = (await schemas.create()).url;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await killTwiceAndResume(async (common) => {
        const env = { ...common, DATABASE_URL: databaseUrl, REDIS_URL: redis.url! };
        const api = await spawnServe(env);
        return {
          env,
          api,
          startRunner: () => spawnWorker(env),
          async pendingJobs(runId) {
            const { rows } = await client.query('select pending_jobs from integration_runs where id = $1', [
              runId,
            ]);
            return JSON.parse((rows[0] as { pending_jobs: string }).pending_jobs) as string[];
          },
          charged: (keyId) => verificationsChargedIn({ databaseUrl }, keyId),
        };
      });
    } finally {
      await client.end();
    }
  });
});
