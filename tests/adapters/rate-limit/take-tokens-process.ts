/**
 * A second "API process" for the cross-process rate limit test: connects to Redis, says `ready`,
 * waits for a line on stdin (so both processes start taking at the same moment), takes COUNT
 * tokens concurrently, prints `{"allowed": N, "start": ms, "end": ms}` (when it took them, by the
 * machine's clock, which Redis's TIME also reads) and exits.
 *
 * Usage: node --import tsx take-tokens-process.ts REDIS_URL KEY_PREFIX KEY_ID RATE COUNT
 */
import { once } from 'node:events';
import { RedisRateLimiter } from '../../../src/adapters/rate-limit/redis.ts';
import { closeRedis, createRedisClient, waitUntilReady } from '../../../src/adapters/redis/redis-client.ts';

const [url, prefix, keyId, rate, count] = process.argv.slice(2);
if (
  url === undefined ||
  prefix === undefined ||
  keyId === undefined ||
  rate === undefined ||
  count === undefined
) {
  console.error('usage: take-tokens-process.ts REDIS_URL KEY_PREFIX KEY_ID RATE COUNT');
  process.exit(2);
}
// A generous command timeout: this process measures atomicity, not latency.
const client = createRedisClient(url, { commandTimeoutMs: 5_000 });
if (!(await waitUntilReady(client, 5_000))) {
  console.error('Redis not ready');
  process.exit(1);
}
const limiter = new RedisRateLimiter(client, prefix);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const start = Date.now();
const decisions = await Promise.all(
  Array.from({ length: Number(count) }, () => limiter.take(keyId, Number(rate))),
);
const end = Date.now();
process.stdout.write(
  `${JSON.stringify({ allowed: decisions.filter((d) => d.allowed).length, start, end })}\n`,
);
await closeRedis(client);
process.exit(0);
