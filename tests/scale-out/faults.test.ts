/**
 * Scale-out faults: a real `mailvet serve` whose PostgreSQL or Redis link goes through a
 * TCP proxy the test breaks and mends (the shared servers themselves are never stopped).
 * PostgreSQL unreachable → /readyz 503 `not_ready` and requests a documented 5xx, both in bounded
 * time, no crash, and recovery without a restart. Redis unreachable → requests still 200 (memory
 * fallback), the fallback logged once, and Redis used again once it is back.
 * Needs DATABASE_URL and REDIS_URL; skips without them, except under CI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { RATE_LIMIT_KEY_PREFIX } from '../../src/adapters/rate-limit/redis.ts';
import { LOG_BATCH_MS } from '../../src/container/logger.ts';
import { requirePostgres, requireRedis } from '../helpers/services.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';
import { createKey, type ServeProcess, schemaFactory, secretKey, spawnServe, verify } from './processes.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const postgres = await requirePostgres('scale-out fault suite');
const redis = await requireRedis('scale-out fault suite');

/** /readyz answers within this (its own check is bounded at 2 s). */
const READY_BOUND_MS = 3_000;
/** A request answers within this while the database is gone: connect 2 s, query 6 s, plus slack. */
const REQUEST_BOUND_MS = 9_000;
/** Recovery happens within this once the link is back. */
const RECOVERY_BOUND_MS = 15_000;

interface ErrorBody {
  code: string;
  message: string;
  errors: unknown[];
  request_id: string;
  checks?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `fetch` that fails the test instead of hanging past `boundMs`; returns the response and its time. */
async function timed(boundMs: number, send: (signal: AbortSignal) => Promise<Response>) {
  const started = performance.now();
  const response = await send(AbortSignal.timeout(boundMs));
  const body = await response.text();
  return { response, body, elapsedMs: performance.now() - started };
}

/** Polls `check` every 250 ms until it is true or `boundMs` passes; true when it became true. */
async function eventually(boundMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + boundMs;
  while (performance.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(250);
  }
  return false;
}

/** The same URL, reaching its host through `proxy`. */
function through(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

if (postgres.url === null || redis.url === null) {
  test('scale-out faults', (t) => t.skip(postgres.skipReason ?? redis.skipReason));
} else {
  const baseDatabaseUrl = postgres.url;
  const redisUrl = redis.url;
  const schemas = schemaFactory(baseDatabaseUrl);
  let world: DnsWorld;
  let databaseUrl: string;
  let common: Record<string, string>;

  before(async () => {
    world = await startDnsWorld({ 'acme.test': { mx: [{ exchange: 'mx.acme.test', priority: 10 }] } });
    databaseUrl = (await schemas.create()).url;
    common = {
      MAILVET_SECRET_KEY: secretKey(),
      MAILVET_DNS_SERVERS: world.servers,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_RESULT_TTL: '0',
    };
  });
  after(async () => {
    await world?.close();
    await schemas.dropAll();
  });

  for (const failure of ['cut', 'blackhole'] as const) {
    describe(`PostgreSQL unreachable (${failure === 'cut' ? 'connections reset' : 'packets dropped'})`, () => {
      let proxy: TcpProxy;
      let server: ServeProcess;
      let key: string;
      before(async () => {
        const upstream = new URL(baseDatabaseUrl);
        proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 5432));
        server = await spawnServe({ ...common, DATABASE_URL: through(databaseUrl, proxy) });
        key = (
          await createKey('pg-fault', ['--rate-limit', '100000'], { ...common, DATABASE_URL: databaseUrl })
        ).key;
      });
      after(async () => {
        await server?.stop();
        await proxy?.close();
      });

      test('serves while the database answers', async () => {
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
        // Concurrent requests leave several open connections in the pool: the outage must also
        // be bounded for a query sent on one of those, not only for a new connection.
        const warm = await Promise.all(
          Array.from({ length: 12 }, (_, i) => verify(server.url, key, `before${i}@acme.test`)),
        );
        assert.deepEqual(
          warm.map((response) => response.status),
          warm.map(() => 200),
        );
      });

      test('/readyz answers 503 not_ready with checks.store = error, without hanging', async () => {
        if (failure === 'cut') proxy.cut();
        else proxy.blackhole();
        const { response, body, elapsedMs } = await timed(READY_BOUND_MS + 2_000, (signal) =>
          fetch(`${server.url}/readyz`, { signal }),
        );
        assert.equal(response.status, 503);
        const parsed = JSON.parse(body) as ErrorBody;
        assert.equal(parsed.code, 'not_ready');
        assert.equal(parsed.checks?.store, 'error');
        assert.deepEqual(parsed.errors, []);
        assert.equal(typeof parsed.request_id, 'string');
        assert.ok(elapsedMs < READY_BOUND_MS, `readyz took ${Math.round(elapsedMs)} ms`);
      });

      test('/api/v1/verify answers a documented 5xx in bounded time, and the process lives on', async () => {
        const answers = await Promise.all(
          [0, 1, 2].map((i) =>
            timed(REQUEST_BOUND_MS + 3_000, (signal) =>
              verify(server.url, key, `down${i}@acme.test`, signal),
            ),
          ),
        );
        for (const { response, body, elapsedMs } of answers) {
          assert.equal(response.status, 500, body);
          const parsed = JSON.parse(body) as ErrorBody;
          assert.equal(parsed.code, 'internal_error');
          assert.deepEqual(parsed.errors, []);
          assert.equal(response.headers.get('x-request-id'), parsed.request_id);
          assert.doesNotMatch(parsed.message, /ECONN|timeout|pg|postgres|at /i, 'no internal detail');
          assert.ok(elapsedMs < REQUEST_BOUND_MS, `verify took ${Math.round(elapsedMs)} ms`);
        }
        assert.ok(server.alive(), `the process died: ${server.stderr()}`);
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'still live while not ready');
      });

      test('recovers by itself once the database is reachable again', async () => {
        proxy.restore();
        const ready = await eventually(RECOVERY_BOUND_MS, async () => {
          return (await fetch(`${server.url}/readyz`)).status === 200;
        });
        assert.ok(ready, 'readyz back to 200');
        const served = await eventually(RECOVERY_BOUND_MS, async () => {
          return (await verify(server.url, key, 'after@acme.test')).status === 200;
        });
        assert.ok(served, 'verify back to 200');
        assert.ok(server.alive());
      });
    });
  }

  for (const failure of ['cut', 'blackhole'] as const) {
    describe(`Redis unreachable (${failure === 'cut' ? 'connections reset' : 'packets dropped'})`, () => {
      let proxy: TcpProxy;
      let server: ServeProcess;
      let key: string;
      /** A key of 1 request/s: its bucket stays in Redis for a second after a request. */
      let probe: { id: string; accountId: string; key: string };
      let direct: Redis;
      before(async () => {
        const upstream = new URL(redisUrl);
        proxy = await startTcpProxy(upstream.hostname || '127.0.0.1', Number(upstream.port || 6379));
        server = await spawnServe({
          ...common,
          DATABASE_URL: databaseUrl,
          REDIS_URL: through(redisUrl, proxy),
        });
        const env = { ...common, DATABASE_URL: databaseUrl };
        key = (await createKey('redis-fault', ['--rate-limit', '100000'], env)).key;
        probe = await createKey('redis-probe', ['--rate-limit', '1'], env);
        direct = new Redis(redisUrl);
      });
      after(async () => {
        await server?.stop();
        await proxy?.close();
        direct?.disconnect();
      });

      /** Sends one request with the probe key; true when its bucket (see RedisRateLimiter) is in Redis. */
      const probeReachesRedis = async (): Promise<boolean> => {
        const bucket = `${RATE_LIMIT_KEY_PREFIX}account:${probe.accountId}`;
        await direct.del(bucket);
        const response = await verify(server.url, probe.key, 'probe@acme.test');
        await response.arrayBuffer();
        return (await direct.exists(bucket)) === 1;
      };

      test('uses the shared bucket in Redis while Redis answers', async () => {
        assert.equal((await verify(server.url, key, 'before@acme.test')).status, 200);
        assert.equal(await probeReachesRedis(), true, 'the bucket lives in Redis');
      });

      test('requests still succeed, from memory, and the fall-back is logged once', async () => {
        if (failure === 'cut') proxy.cut();
        else proxy.blackhole();
        for (let i = 0; i < 10; i++) {
          const { response, elapsedMs } = await timed(5_000, (signal) =>
            verify(server.url, key, `down${i}@acme.test`, signal),
          );
          assert.equal(response.status, 200);
          assert.ok(elapsedMs < 1_000, `verify took ${Math.round(elapsedMs)} ms`);
        }
        assert.equal(await probeReachesRedis(), false, 'nothing reaches Redis');
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200, 'Redis down is not unready');
        assert.ok(server.alive());
        // Standard output's lines come in batches, up to LOG_BATCH_MS late: wait for the line, then
        // as long again for a second one that must not come.
        const fallbacks = () =>
          server.lines.filter((line) => line.includes('rate limiter: Redis unavailable'));
        assert.ok(
          await eventually(20 * LOG_BATCH_MS, async () => fallbacks().length > 0),
          'the fall-back is logged',
        );
        await sleep(2 * LOG_BATCH_MS);
        assert.equal(fallbacks().length, 1, `fall-back log lines: ${JSON.stringify(fallbacks())}`);
      });

      test('uses Redis again by itself once it is back', async () => {
        proxy.restore();
        const back = await eventually(RECOVERY_BOUND_MS, async () => {
          await sleep(500);
          return probeReachesRedis();
        });
        assert.ok(back, 'the bucket is in Redis again');
        assert.equal((await verify(server.url, key, 'after@acme.test')).status, 200);
        assert.ok(
          await eventually(20 * LOG_BATCH_MS, async () =>
            server.lines.some((line) => line.includes('rate limiter: Redis recovered')),
          ),
          'the recovery is logged',
        );
      });
    });
  }
}
