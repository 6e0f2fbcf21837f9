/**
 * What processes share through Redis in scale-out (DESIGN §4), each piece falling back to an
 * in-process one while Redis does not answer (warned once, recovered by itself). The composition
 * root calls this only when REDIS_URL is set.
 */
import type { Redis } from 'ioredis';
import type { RateLimiter, ResultCache } from '../../service/ports.ts';
import type { Clock } from '../../verification/ports.ts';
import { FallbackResultCache } from '../cache/fallback-result-cache.ts';
import { MemoryResultCache } from '../cache/memory-result-cache.ts';
import { RedisResultCache } from '../cache/redis-result-cache.ts';
import {
  type DnsAnswerStore,
  FallbackDnsAnswerStore,
  MemoryDnsAnswerStore,
} from '../dns/dns-answer-store.ts';
import { RedisDnsAnswerStore } from '../dns/redis-dns-cache.ts';
import { FallbackRateLimiter } from '../ratelimit/fallback-rate-limiter.ts';
import { MemoryRateLimiter } from '../ratelimit/memory-rate-limiter.ts';
import { RedisRateLimiter } from '../ratelimit/redis-rate-limiter.ts';
import { type CatchAllStore, FallbackCatchAllStore, MemoryCatchAllStore } from '../smtp/catch-all-store.ts';
import {
  FallbackHostLimiter,
  type HostSessionLimiter,
  MemoryHostLimiter,
} from '../smtp/host-session-limiter.ts';
import { RedisCatchAllStore } from '../smtp/redis-catch-all-store.ts';
import { RedisHostLimiter } from '../smtp/redis-host-limiter.ts';

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
