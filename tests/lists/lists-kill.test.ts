/**
 * A list job survives `kill -9`: the process is killed while the list runs, a new one
 * starts, and the list completes with exactly one result per row and every unique address charged
 * once. Embedded (SQLite, in-process worker: the killed process is the API) and scale-out
 * (PostgreSQL + Redis, BullMQ: the killed process is the worker; another one takes the job over).
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ListView } from '../../src/lists/list-view.ts';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { verificationsChargedIn } from '../helpers/usage.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import { createKey, schemaFactory, spawnServe, spawnWorker } from '../scale-out/processes.ts';

let world: MailWorld;
before(async () => {
  // Every reply waits 20 ms: a list of a few hundred addresses runs for seconds, long enough to kill.
  world = await startMailWorld();
});
after(() => world?.close());

/** 300 rows: 240 unique addresses at the slow host, 60 duplicates of them. */
function addresses(): string[] {
  const domain = world.domains['reply-delay'];
  const unique = Array.from({ length: 240 }, (_, i) => `user${i + 1}@${domain}`);
  return [...unique, ...unique.slice(0, 60)];
}

function commonEnv(): Record<string, string> {
  return {
    ...world.env,
    MAILVET_RESULT_TTL: '0',
    MAILVET_LIST_SWEEP_MS: '300',
    // A killed worker's SMTP session slots stay taken until their lease ends (10 s): addresses
    // that could not get one are checked again after this wait.
    MAILVET_LIST_RECHECK_MS: '5000',
    MAILVET_SMTP_PROBE_TIMEOUT_MS: '5000',
    MAILVET_JOB_LOCK_MS: '2000',
    // Scale-out requires one secret for all processes; embedded would make its own.
    MAILVET_SECRET_KEY: 'ab'.repeat(32),
  };
}

async function api(url: string, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
  });
}

async function poll(
  url: string,
  key: string,
  id: string,
  done: (list: ListView) => boolean,
): Promise<ListView> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const list = (await (await api(url, key, `/lists/${id}`)).json()) as ListView;
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`hang guard: list still ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Uploads the list and returns its id once it is under way (some rows done, not all). */
async function uploadAndWaitForProgress(url: string, key: string): Promise<string> {
  const response = await api(url, key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'kill me', emails: addresses() }),
  });
  assert.equal(response.status, 202);
  const { id } = (await response.json()) as ListView;
  const before = await poll(url, key, id, (list) => list.counts.processed >= 20);
  assert.ok(before.counts.processed < 300, 'killed mid-list');
  return id;
}

/** Checks the finished list: one result per row, in order, and the charge. */
async function assertWhole(
  url: string,
  key: string,
  id: string,
  charged: () => Promise<number>,
): Promise<void> {
  const done = await poll(url, key, id, (list) => list.state === 'completed');
  assert.equal(done.counts.total, 300);
  assert.equal(done.counts.processed, 300);
  const rows = (await (await api(url, key, `/lists/${id}/results?format=json`)).json()) as Array<{
    row: number;
    email: string;
    result: { email: string; status: string; reason: string } | null;
  }>;
  const reasons: Record<string, number> = {};
  for (const row of rows)
    reasons[row.result?.reason ?? 'none'] = (reasons[row.result?.reason ?? 'none'] ?? 0) + 1;
  assert.equal(rows.length, 300);
  const expected = addresses();
  rows.forEach((row, i) => {
    assert.equal(row.row, i + 1);
    assert.equal(row.email, expected[i]);
    assert.ok(row.result !== null, `row ${i + 1} has a result`);
  });
  // user1..user100 exist on the host; the others are rejected.
  assert.equal(done.counts.valid, 100 + 60, JSON.stringify(reasons));
  assert.equal(done.counts.invalid, 140, JSON.stringify(reasons));
  assert.equal(await charged(), 240, 'every unique address charged exactly once, across the crash');
}

describe('embedded (SQLite, in-process worker)', () => {
  test('kill -9 of the server mid-list: a restart resumes it and completes it exactly once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-kill-'));
    try {
      const env = { ...commonEnv(), MAILVET_DATA_DIR: dataDir };
      const { id: keyId, key } = await createKey('kill test', ['--plan', 'pro', '--rate-limit', '1000'], env);
      let server = await spawnServe(env);
      const id = await uploadAndWaitForProgress(server.url, key);
      await server.kill();

      server = await spawnServe(env);
      try {
        await assertWhole(server.url, key, id, () => verificationsChargedIn({ dataDir }, keyId));
      } finally {
        await server.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

const postgres = await requirePostgres('list kill -9 suite (scale-out)');
const redis = await requireRedis('list kill -9 suite (scale-out)');

describe('scale-out (PostgreSQL, Redis, BullMQ workers)', () => {
  if (postgres.url === null || redis.url === null) {
    test('kill -9 of a worker', (t) => t.skip(postgres.skipReason ?? redis.skipReason));
    return;
  }
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());

  test('kill -9 of the worker mid-list: another worker takes the job over and completes it exactly once', async () => {
    const databaseUrl = (await schemas.create()).url;
    const env = { ...commonEnv(), DATABASE_URL: databaseUrl, REDIS_URL: redis.url! };
    const { id: keyId, key } = await createKey('kill test', ['--plan', 'pro', '--rate-limit', '1000'], env);
    const api1 = await spawnServe(env);
    let worker = await spawnWorker(env);
    try {
      const id = await uploadAndWaitForProgress(api1.url, key);
      await worker.kill();
      worker = await spawnWorker(env);
      await assertWhole(api1.url, key, id, () => verificationsChargedIn({ databaseUrl }, keyId));
    } finally {
      await worker.stop();
      await api1.stop();
    }
  });
});

describe('mailvet serve --no-worker and mailvet worker (embedded)', () => {
  test('a server without a worker only queues; a worker process on the same data runs the list', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-noworker-'));
    const env = { ...commonEnv(), MAILVET_DATA_DIR: dataDir };
    const { key } = await createKey('worker test', ['--plan', 'pro', '--rate-limit', '1000'], env);
    const server = await spawnServe(env, ['--no-worker']);
    let worker: Awaited<ReturnType<typeof spawnWorker>> | undefined;
    try {
      const accept = world.domains['accept-known'];
      const response = await api(server.url, key, '/lists', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ emails: [`alice@${accept}`, `ghost@${accept}`] }),
      });
      const { id } = (await response.json()) as ListView;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const waiting = (await (await api(server.url, key, `/lists/${id}`)).json()) as ListView;
      assert.equal(waiting.state, 'queued', 'nothing in the server runs lists');
      worker = await spawnWorker(env);
      const done = await poll(server.url, key, id, (list) => list.state === 'completed');
      assert.equal(done.counts.valid, 1);
      assert.equal(done.counts.invalid, 1);
    } finally {
      await worker?.stop();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
