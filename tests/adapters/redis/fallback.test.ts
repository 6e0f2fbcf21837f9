/**
 * Redis faults against real sockets: an unreachable Redis, one killed and restarted on
 * the same port, and one frozen (SIGSTOP) so commands time out. The rate limiter and the result
 * cache must answer from memory, never throw, warn once when falling back and once when back.
 * The restart cases start throwaway `redis-server` processes (no persistence) and need it on PATH;
 * without it they skip, except under CI.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../src/adapters/rate-limit/redis.ts';
import { closeRedis, createRedisClient, waitUntilReady } from '../../../src/adapters/redis/redis-client.ts';
import { withFallback } from '../../../src/adapters/redis/with-fallback.ts';
import { MemoryResultCache } from '../../../src/adapters/result-cache/memory.ts';
import { RedisResultCache } from '../../../src/adapters/result-cache/redis.ts';
import { FALLBACKS } from '../../../src/container/shared-state.ts';
import type { RateLimiter, ResultCache } from '../../../src/usage/ports.ts';
import { freePort } from '../../helpers/free-port.ts';
import { takeInSequence } from '../rate-limit/contract.ts';
import { sampleResult } from '../result-cache/contract.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const PREFIX = `mailvet-test:${randomUUID()}:`;
const RETRY_MS = 50;

const clients: Redis[] = [];
const servers: ChildProcess[] = [];
after(async () => {
  for (const server of servers)
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  await Promise.all(clients.map((client) => closeRedis(client)));
});

/** The limiter and cache as scale-out wires them, recording their warnings. */
function scaleOutAdapters(client: Redis) {
  const warnings = { limiter: [] as string[], cache: [] as string[] };
  const redisCache = new RedisResultCache(client, `${PREFIX}result:`);
  const limiter = withFallback<RateLimiter>(
    new RedisRateLimiter(client, `${PREFIX}rl:`),
    new MemoryRateLimiter(new SystemClock()),
    {
      ...FALLBACKS.rateLimiter,
      warn: (message) => warnings.limiter.push(message),
      retryIntervalMs: RETRY_MS,
    },
  );
  const cache = withFallback<ResultCache>(redisCache, new MemoryResultCache(), {
    ...FALLBACKS.resultCache,
    warn: (message) => warnings.cache.push(message),
    retryIntervalMs: RETRY_MS,
  });
  return { limiter, cache, redisCache, warnings };
}

function client(url: string): Redis {
  const made = createRedisClient(url);
  clients.push(made);
  return made;
}

describe('Redis unreachable (nothing listens on the port)', () => {
  it('answers take(), get() and set() from memory, never throws, warns once each', async () => {
    const port = await freePort();
    const { limiter, cache, warnings } = scaleOutAdapters(client(`redis://127.0.0.1:${port}`));

    // The in-process bucket's figures: a burst of ten at 5/s, then a refusal.
    const decisions = await takeInSequence(limiter, 'key', 5, 11);
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [...new Array<boolean>(10).fill(true), false],
    );
    assert.equal(decisions[10]?.retryAfterSeconds, 1);
    await Promise.all(Array.from({ length: 50 }, () => limiter.take('other', 5)));

    const email = 'jane@example.com';
    assert.equal(await cache.get(email), undefined);
    await cache.set(email, sampleResult(email), 60);
    assert.deepEqual(await cache.get(email), sampleResult(email));

    assert.equal(warnings.limiter.length, 1);
    assert.match(warnings.limiter[0] ?? '', /^rate limiter: Redis unavailable .*per-process limits/);
    assert.equal(warnings.cache.length, 1);
    assert.match(warnings.cache[0] ?? '', /^result cache: Redis unavailable .*in-process cache/);
    assert.equal(limiter.degraded, true);
    assert.equal(cache.degraded, true);
  });
});

const redisServer = findRedisServer();

if (redisServer.skip !== undefined) {
  it('Redis killed and restarted, Redis frozen', { skip: redisServer.skip }, () => {});
} else {
  describe('Redis killed and restarted, Redis frozen (throwaway redis-server)', () => {
    it('falls back when Redis dies, and uses Redis again once it is back on the same port', async () => {
      const port = await freePort();
      let server = await startRedis(port);
      const url = `redis://127.0.0.1:${port}`;
      const shared = client(url);
      const checker = client(url);
      assert.equal(await waitUntilReady(shared), true);
      assert.equal(await waitUntilReady(checker), true);
      const { limiter, cache, redisCache, warnings } = scaleOutAdapters(shared);

      // Healthy: the bucket and the entry are in Redis.
      assert.equal((await limiter.take('before', 5)).allowed, true);
      assert.equal(await checker.exists(`${PREFIX}rl:before`), 1);
      await cache.set('before@example.com', sampleResult('before@example.com'), 60);
      assert.equal(await checker.exists(redisCache.keyOf('before@example.com')), 1);
      assert.deepEqual(warnings, { limiter: [], cache: [] });

      // Killed: answers from memory, no throw, one warning each however many calls.
      server.kill('SIGKILL');
      await once(server, 'exit');
      const during = await takeInSequence(limiter, 'during', 5, 11);
      assert.deepEqual(
        during.map((d) => d.allowed),
        [...new Array<boolean>(10).fill(true), false],
      );
      assert.equal(await cache.get('before@example.com'), undefined); // it was in Redis only
      await cache.set('during@example.com', sampleResult('during@example.com'), 60);
      assert.deepEqual(await cache.get('during@example.com'), sampleResult('during@example.com'));
      assert.equal(warnings.limiter.length, 1);
      assert.equal(warnings.cache.length, 1);

      // Back on the same port: the client reconnects by itself, the next trial call recovers.
      server = await startRedis(port);
      assert.equal(await waitUntilReady(shared, 5_000), true);
      assert.equal(await waitUntilReady(checker, 5_000), true);
      await sleep(RETRY_MS + 10);
      assert.equal((await limiter.take('after', 5)).allowed, true);
      assert.equal(await checker.exists(`${PREFIX}rl:after`), 1);
      await cache.set('after@example.com', sampleResult('after@example.com'), 60);
      assert.equal(await checker.exists(redisCache.keyOf('after@example.com')), 1);
      assert.deepEqual(await cache.get('after@example.com'), sampleResult('after@example.com'));

      assert.equal(warnings.limiter.length, 2);
      assert.match(warnings.limiter[1] ?? '', /^rate limiter: Redis recovered/);
      assert.equal(warnings.cache.length, 2);
      assert.match(warnings.cache[1] ?? '', /^result cache: Redis recovered/);
      assert.equal(limiter.degraded, false);
      assert.equal(cache.degraded, false);
    });

    it('falls back within the command timeout when Redis stops answering, and recovers', async () => {
      const port = await freePort();
      const server = await startRedis(port);
      const shared = client(`redis://127.0.0.1:${port}`);
      assert.equal(await waitUntilReady(shared), true);
      const { limiter, warnings } = scaleOutAdapters(shared);
      assert.equal((await limiter.take('frozen', 5)).allowed, true);

      server.kill('SIGSTOP'); // the socket stays open; replies just never come
      try {
        const started = performance.now();
        const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.take('frozen', 5)));
        // Generous bound: the point is "no hang", the client's timeout is 150 ms.
        assert.ok(performance.now() - started < 2_000, 'take() waited for a frozen Redis');
        // The in-process bucket is fresh: ten of the twenty pass.
        assert.equal(decisions.filter((d) => d.allowed).length, 10);
        assert.equal(warnings.limiter.length, 1);
      } finally {
        server.kill('SIGCONT');
      }
      await sleep(RETRY_MS + 10);
      await limiter.take('thawed', 5);
      assert.equal(warnings.limiter.length, 2);
      assert.match(warnings.limiter[1] ?? '', /recovered/);
    });
  });
}

/** `redis-server` on PATH, or why the restart cases skip (under CI its absence is a failure). */
function findRedisServer(): { skip?: string } {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return {};
  const problem = 'redis-server is not on PATH (install redis-server to run the restart cases)';
  if (process.env.CI === 'true') throw new Error(`${problem}: under CI=true they must run`);
  return { skip: problem };
}

/** A throwaway redis-server on `port`, keeping nothing on disk; resolves once it answers PING. */
async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: 'ignore' },
  );
  servers.push(server);
  for (let waited = 0; !(await answersPing(port)); waited += 25) {
    if (waited > 10_000 || server.exitCode !== null)
      throw new Error(`redis-server on port ${port} did not start`);
    await sleep(25);
  }
  return server;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString('latin1').startsWith('+PONG'));
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}
