/**
 * List jobs while the API process cannot reach Redis: the upload is
 * still answered 202, with no 5xx and no hang (queueing gives up after 2 s); the list waits in the
 * store as `queued`, and a worker that does reach Redis picks it up from the store by its sweep.
 * The API's Redis link goes through a proxy the test cuts; the worker connects directly.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ListView } from '../../src/lists/list-view.ts';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';
import { createKey, schemaFactory, secretKey, spawnServe, spawnWorker } from './processes.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const postgres = await requirePostgres('scale-out list queue fault suite');
const redis = await requireRedis('scale-out list queue fault suite');

if (postgres.url === null || redis.url === null) {
  test('list uploads while Redis is unreachable', (t) => t.skip(postgres.skipReason ?? redis.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  let world: MailWorld;
  let proxy: TcpProxy;
  before(async () => {
    world = await startMailWorld();
    const upstream = new URL(redis.url!);
    proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 6379));
  });
  after(async () => {
    await proxy?.close();
    await world?.close();
    await schemas.dropAll();
  });

  test('an upload while Redis is cut is 202 and queued; a worker runs it from the store', async () => {
    const databaseUrl = (await schemas.create()).url;
    const env = {
      ...world.env,
      DATABASE_URL: databaseUrl,
      MAILVET_SECRET_KEY: secretKey(),
      MAILVET_RESULT_TTL: '0',
      MAILVET_LIST_SWEEP_MS: '300',
    };
    const proxied = new URL(redis.url!);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const { key } = await createKey('queue fault', ['--plan', 'pro', '--rate-limit', '1000'], {
      ...env,
      REDIS_URL: redis.url!,
    });
    const server = await spawnServe({ ...env, REDIS_URL: proxied.toString() });
    let worker: Awaited<ReturnType<typeof spawnWorker>> | undefined;
    try {
      proxy.cut();
      const accept = world.domains['accept-known'];
      const started = performance.now();
      const response = await fetch(`${server.url}/api/v1/lists`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'while Redis is down', emails: [`alice@${accept}`, `ghost@${accept}`] }),
        signal: AbortSignal.timeout(10_000),
      });
      const elapsedMs = performance.now() - started;
      assert.equal(response.status, 202, await response.clone().text());
      assert.ok(elapsedMs < 10_000, 'answered, not hung');
      const created = (await response.json()) as ListView;
      assert.equal(created.state, 'queued');

      // A worker with its own (working) Redis link finds the list in the store and runs it.
      worker = await spawnWorker({ ...env, REDIS_URL: redis.url! });
      const deadline = Date.now() + 30_000;
      let list = created;
      while (list.state !== 'completed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const current = await fetch(`${server.url}/api/v1/lists/${created.id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        list = (await current.json()) as ListView;
      }
      assert.equal(list.state, 'completed');
      assert.equal(list.counts.valid, 1);
      assert.equal(list.counts.invalid, 1);
      assert.ok(server.alive(), server.stderr());
    } finally {
      proxy.restore();
      await worker?.stop();
      await server.stop();
    }
  });
}
