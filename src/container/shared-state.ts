/**
 * What processes share through Redis in scale-out (DESIGN §4), each piece falling back to an
 * in-process one while Redis does not answer (warned once, recovered by itself). The composition
 * root calls this only when REDIS_URL is set.
 */
import type { Redis } from 'ioredis';
import {
  type DnsAnswerStore,
  FallbackDnsAnswerStore,
  MemoryDnsAnswerStore,
} from '../adapters/dns/answers/memory.ts';
import { RedisDnsAnswerStore } from '../adapters/dns/answers/redis.ts';
import { FallbackRateLimiter } from '../adapters/rate-limit/fallback.ts';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory.ts';
import { RedisRateLimiter } from '../adapters/rate-limit/redis.ts';
import { FallbackResultCache } from '../adapters/result-cache/fallback.ts';
import { MemoryResultCache } from '../adapters/result-cache/memory.ts';
import { RedisResultCache } from '../adapters/result-cache/redis.ts';
import {
  type CatchAllStore,
  FallbackCatchAllStore,
  MemoryCatchAllStore,
} from '../adapters/smtp/catch-all/memory.ts';
import { RedisCatchAllStore } from '../adapters/smtp/catch-all/redis.ts';
import {
  FallbackHostLimiter,
  type HostSessionLimiter,
  MemoryHostLimiter,
} from '../adapters/smtp/host-limiter/memory.ts';
import { RedisHostLimiter } from '../adapters/smtp/host-limiter/redis.ts';
import type { RateLimiter, ResultCache } from '../usage/ports.ts';
import type { Clock } from '../verification/ports.ts';

/** Sessions per MX host address, across every process (the prober's own default too). */
export const SHARED_HOST_SESSIONS = 2;

/** The Redis-backed pieces, each with its in-process fallback. */
export interface SharedState {
  rateLimiter: RateLimiter;
  resultCache: ResultCache;
  dnsAnswers: DnsAnswerStore;
  catchAll: CatchAllStore;
  hostLimiter: HostSessionLimiter;
}

/** Builds every shared piece on one Redis client. */
export function sharedState(
  redis: Redis,
  clock: Clock,
  warn: (message: string) => void,
  probeTimeoutMs: number,
): SharedState {
  return {
    rateLimiter: new FallbackRateLimiter(new RedisRateLimiter(redis), new MemoryRateLimiter(clock), warn),
    resultCache: new FallbackResultCache(new RedisResultCache(redis), new MemoryResultCache(), warn),
    dnsAnswers: new FallbackDnsAnswerStore(
      new RedisDnsAnswerStore(redis),
      new MemoryDnsAnswerStore(clock, 10_000),
      warn,
    ),
    catchAll: new FallbackCatchAllStore(new RedisCatchAllStore(redis), new MemoryCatchAllStore(clock), warn),
    hostLimiter: new FallbackHostLimiter(
      new RedisHostLimiter(redis, {
        permits: SHARED_HOST_SESSIONS,
        maxWaitMs: probeTimeoutMs,
        // Short leases (renewed every ~3 s): a killed worker's slots come back within 10 s.
        leaseMs: 10_000,
      }),
      new MemoryHostLimiter(SHARED_HOST_SESSIONS),
      warn,
    ),
  };
}
