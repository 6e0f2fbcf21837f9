/**
 * One ResultCache contract, run against the in-process and the Redis caches, then what only the
 * Redis one promises: hashed keys, millisecond TTLs, corrupt entries read as misses. The Redis part
 * needs REDIS_URL (skipped without it, except under CI).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { MemoryResultCache } from '../../../src/adapters/result-cache/memory.ts';
import { RedisResultCache } from '../../../src/adapters/result-cache/redis.ts';
import { requireRedis } from '../../helpers/services.ts';
import { type TestRedis, testRedis } from '../redis/redis-test-keys.ts';
import { resultCacheContract, sampleResult } from './contract.ts';

const redis = await requireRedis('Redis result cache suite');

resultCacheContract({ name: 'memory', cache: () => new MemoryResultCache() });

let env: TestRedis | undefined;
let client: Redis;
let prefix: string;

if (redis.url !== null) {
  const url = redis.url;
  before(async () => {
    env = testRedis(url);
    client = await env.connect();
    prefix = env.prefix('result');
  });
  after(() => env?.cleanup());
}

resultCacheContract({
  name: 'redis',
  cache: () => new RedisResultCache(client, prefix),
  skip: redis.skipReason,
});

if (redis.skipReason !== undefined) {
  it('RedisResultCache beyond the contract', { skip: redis.skipReason }, () => {});
} else {
  describe('RedisResultCache beyond the contract', () => {
    it('stores JSON under the prefix and the SHA-256 of the address, with the TTL in ms', async () => {
      const cache = new RedisResultCache(client, prefix);
      const email = `Jane.Doe.${randomUUID()}@example.com`;
      await cache.set(email, sampleResult(email), 2.5);
      const key = prefix + createHash('sha256').update(email).digest('hex');
      assert.equal(cache.keyOf(email), key);
      assert.deepEqual(JSON.parse((await client.get(key)) ?? 'null'), sampleResult(email));
      const ttl = await client.pttl(key);
      assert.ok(ttl > 2_000 && ttl <= 2_500, `pttl ${ttl}`);
    });

    it('keeps apart addresses that differ only by lone surrogates (UTF-8 would merge them)', async () => {
      const cache = new RedisResultCache(client, prefix);
      const id = randomUUID();
      const [one, two] = [`a\uD800${id}@example.com`, `a\uD801${id}@example.com`];
      assert.notEqual(cache.keyOf(one), cache.keyOf(two));
      await cache.set(one, sampleResult(one), 60);
      assert.equal(await cache.get(two), undefined);
      assert.deepEqual(await cache.get(one), sampleResult(one));
    });

    it('reads an entry that is not JSON as a miss, and a later set replaces it', async () => {
      const cache = new RedisResultCache(client, prefix);
      const email = `corrupt.${randomUUID()}@example.com`;
      await client.set(cache.keyOf(email), '{"email": "trunc', 'EX', 60);
      assert.equal(await cache.get(email), undefined);
      await cache.set(email, sampleResult(email), 60);
      assert.deepEqual(await cache.get(email), sampleResult(email));
    });

    it('reads an entry written before results carried evidence as a miss', async () => {
      const cache = new RedisResultCache(client, prefix);
      const email = `legacy.${randomUUID()}@example.com`;
      const { evidence: _evidence, ...legacy } = sampleResult(email);
      await client.set(cache.keyOf(email), JSON.stringify(legacy), 'EX', 60);
      assert.equal(await cache.get(email), undefined);
      await cache.set(email, sampleResult(email), 60);
      assert.deepEqual((await cache.get(email))?.evidence, sampleResult(email).evidence);
    });

    it('is shared: what one connection stores, another reads', async () => {
      const other = await env!.connect();
      const email = `shared.${randomUUID()}@example.com`;
      await new RedisResultCache(client, prefix).set(email, sampleResult(email), 60);
      assert.deepEqual(await new RedisResultCache(other, prefix).get(email), sampleResult(email));
    });
  });
}
