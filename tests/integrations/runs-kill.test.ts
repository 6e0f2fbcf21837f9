/**
 * A run survives `kill -9` (embedded: SQLite, in-process worker): the server is killed while the
 * run's list is being verified, and again while its write batch is running in Mailchimp. Each
 * restart takes the run up from the store: the audience is read once (one list, its rows once),
 * every address is charged once, and the members are written in one batch, never sent again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { monthOf } from '../../src/usage/months.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import { createKey, spawnServe } from '../scale-out/processes.ts';

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

test('kill -9 while verifying and while writing: the run completes, each member read, charged and written once', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-run-kill-'));
  try {
    const env = {
      ...world.env,
      MAILVET_DATA_DIR: dataDir,
      MAILVET_RESULT_TTL: '0',
      MAILVET_LIST_SWEEP_MS: '300',
      MAILVET_LIST_RECHECK_MS: '5000',
      MAILVET_SMTP_PROBE_TIMEOUT_MS: '5000',
      MAILVET_RUN_POLL_MS: '100',
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    };
    const { id: keyId, key } = await createKey('run kill', ['--plan', 'pro', '--rate-limit', '1000'], env);
    const account = emulator.addAccount({ name: 'Killed Shop' });
    const audience = emulator.addAudience(account, { name: 'Everyone' });
    // The slow host answers every command after a delay: the list runs for seconds.
    const domain = world.domains['reply-delay'];
    for (let i = 1; i <= MEMBERS; i++)
      emulator.addMember(audience, { email: `user${i}@${domain}`, status: 'subscribed' });

    let server = await spawnServe(env);
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const waitFor = async (runId: string, done: (run: Run) => boolean): Promise<Run> => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const run = (await api('GET', `/integrations/${integrationId}/runs/${runId}`)).body as unknown as Run;
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`hang guard: run ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const connected = await api('POST', '/integrations', { provider: 'mailchimp', api_key: account.apiKey });
    assert.equal(connected.status, 201);
    const integrationId = connected.body.id as string;
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(started.status, 202);
    const runId = started.body.id as string;

    // Killed mid-verification: some of its list done, not all.
    const verifying = await waitFor(runId, (run) => run.state === 'verifying' && run.list_id !== null);
    for (;;) {
      const list = (await api('GET', `/lists/${verifying.list_id}`)).body as {
        counts: { processed: number };
      };
      if (list.counts.processed >= 20) {
        assert.ok(list.counts.processed < MEMBERS, 'killed mid-list');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Mailchimp works slowly on the batch: the second kill lands while it is pending.
    emulator.batchStepMs = 1500;
    await server.kill();
    server = await spawnServe(env);

    // Killed once the batch is recorded in the store. (A crash in the instant between Mailchimp
    // accepting a batch and the store recording it sends the batch again: the same values, counted
    // once; docs/integrations/mailchimp.md says so.) Read-only, beside the server.
    await waitFor(runId, (run) => run.state === 'writing');
    const reader = new Database(join(dataDir, 'mailvet.db'), { readonly: true });
    try {
      const pendingJobs = () =>
        (
          reader.prepare('select pending_jobs from integration_runs where id = ?').get(runId) as {
            pending_jobs: string;
          }
        ).pending_jobs;
      for (let i = 0; JSON.parse(pendingJobs()).length !== 1; i++) {
        assert.ok(i < 3000, 'hang guard: the batch is recorded');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      reader.close();
    }
    assert.equal(emulator.stats(account).byRoute['POST /batches'], 1);
    await server.kill();
    emulator.batchStepMs = 1;
    server = await spawnServe(env);
    try {
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
    } finally {
      await server.stop();
    }
    const store = await openStore({ dataDir });
    try {
      assert.equal(
        (await usageOfKey(store, keyId, monthOf(new Date()))).verifications,
        MEMBERS,
        'every address charged once, across both crashes',
      );
    } finally {
      await store.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
