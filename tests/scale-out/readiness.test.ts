/**
 * /readyz in scale-out: Redis's line (redisReadiness) follows a real Redis behind a proxy the test
 * breaks and mends, and a `degraded` check is reported without making the process unready.
 * The Redis part needs REDIS_URL; it skips without it, except under CI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedisClient, waitUntilReady } from '../../src/adapters/redis/redis-client.ts';
import { redisReadiness } from '../../src/adapters/redis/redis-readiness.ts';
import type { ReadinessChecks } from '../../src/http/routes/health.ts';
import { testApp } from '../helpers/app.ts';
import { requireRedis } from '../helpers/services.ts';
import { startTcpProxy } from './tcp-proxy.ts';

const redis = await requireRedis('scale-out readiness suite');

async function readyz(checks: ReadinessChecks) {
  const t = await testApp({ ready: async () => checks });
  try {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    return {
      status: response.statusCode,
      body: response.json() as { code?: string; checks: ReadinessChecks },
    };
  } finally {
    await t.close();
  }
}

test('readyz: Redis degraded is reported, and the process stays ready', async () => {
  const degraded = await readyz({ store: 'ok', redis: 'degraded' });
  assert.equal(degraded.status, 200);
  assert.deepEqual(degraded.body.checks, { store: 'ok', redis: 'degraded' });
});

test('readyz: the store in error is 503 not_ready whatever Redis says', async () => {
  const down = await readyz({ store: 'error', redis: 'ok' });
  assert.equal(down.status, 503);
  assert.equal(down.body.code, 'not_ready');
  assert.deepEqual(down.body.checks, { store: 'error', redis: 'ok' });
});

if (redis.url === null) {
  test('redisReadiness against a real Redis', (t) => t.skip(redis.skipReason));
} else {
  const upstream = new URL(redis.url);
  for (const failure of ['cut', 'blackhole'] as const) {
    test(`redisReadiness: ok, degraded within 1 s while Redis is ${failure}, ok again after`, async () => {
      const proxy = await startTcpProxy(upstream.hostname || '127.0.0.1', Number(upstream.port || 6379));
      const through = new URL(redis.url!);
      through.hostname = '127.0.0.1';
      through.port = String(proxy.port);
      const client = createRedisClient(through.toString());
      try {
        assert.equal(await waitUntilReady(client), true);
        assert.equal(await redisReadiness(client), 'ok');

        if (failure === 'cut') proxy.cut();
        else proxy.blackhole();
        const started = performance.now();
        assert.equal(await redisReadiness(client), 'degraded');
        assert.ok(performance.now() - started < 1_000, 'answered within the command timeout');

        proxy.restore();
        let state: string = 'degraded';
        for (let i = 0; i < 40 && state !== 'ok'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          state = await redisReadiness(client);
        }
        assert.equal(state, 'ok', 'back to ok once Redis answers');
      } finally {
        client.disconnect();
        await proxy.close();
      }
    });
  }
}
