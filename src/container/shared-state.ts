/**
 * What processes share through Redis in scale-out, each piece falling back to an
 * in-process one while Redis does not answer (warned once, recovered by itself). The composition
 * root calls this only when REDIS_URL is set.
 */
import type { Redis } from 'ioredis';
import { MemoryDnsAnswerStore } from '../adapters/dns/answers/memory.ts';
import { RedisDnsAnswerStore } from '../adapters/dns/answers/redis.ts';
import type { DnsAnswerStore } from '../adapters/dns/ports.ts';
import { MemoryInFlightLimiter } from '../adapters/integrations/memory-in-flight.ts';
import { InFlightWaitExceeded, RedisInFlightLimiter } from '../adapters/integrations/redis-in-flight.ts';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory.ts';
import { RedisRateLimiter } from '../adapters/rate-limit/redis.ts';
import { withFallback } from '../adapters/redis/with-fallback.ts';
import { MemoryRequestWindow } from '../adapters/request-window/memory.ts';
import { RedisRequestWindow } from '../adapters/request-window/redis.ts';
import { MemoryResultCache } from '../adapters/result-cache/memory.ts';
import { RedisResultCache } from '../adapters/result-cache/redis.ts';
import { MemoryCatchAllStore } from '../adapters/smtp/catch-all/memory.ts';
import { RedisCatchAllStore } from '../adapters/smtp/catch-all/redis.ts';
import { MemoryHostLimiter } from '../adapters/smtp/host-limiter/memory.ts';
import { RedisHostLimiter } from '../adapters/smtp/host-limiter/redis.ts';
import { type CatchAllStore, HostBusyError, type HostSessionLimiter } from '../adapters/smtp/ports.ts';
import type { InFlightLimiter, RequestWindow } from '../integrations/ports.ts';
import type { RateLimiter, ResultCache } from '../usage/ports.ts';
import type { Clock } from '../verification/ports.ts';

/** Sessions per MX host address, across every process (the prober's own default too). */
export const SHARED_HOST_SESSIONS = 2;

/** How each shared piece falls back: the words of its two log lines, the methods it routes. */
export const FALLBACKS = {
  rateLimiter: { component: 'rate limiter', fallback: 'per-process limits', methods: ['take'] },
  resultCache: {
    component: 'result cache',
    fallback: 'an in-process cache',
    methods: ['get', 'set', 'delete'],
  },
  dnsAnswers: { component: 'DNS cache', fallback: 'an in-process DNS cache', methods: ['get', 'set'] },
  catchAll: {
    component: 'catch-all cache',
    fallback: 'an in-process catch-all cache',
    methods: ['get', 'set'],
  },
  hostLimiter: {
    component: 'MX host session limit',
    fallback: 'per-process session limits',
    methods: ['acquire'],
    // A busy host is Redis's answer, not its failure: passed on, never a fall-back.
    isAnswer: (error: unknown) => error instanceof HostBusyError,
  },
  inFlight: {
    component: 'Mailchimp request slots',
    fallback: 'per-process request slots',
    methods: ['acquire'],
    // No free slot in time is Redis's answer, not its failure.
    isAnswer: (error: unknown) => error instanceof InFlightWaitExceeded,
  },
  requestWindow: {
    component: 'HubSpot request window',
    fallback: 'per-process request window',
    methods: ['reserve'],
  },
} as const;

/** The Redis-backed pieces, each with its in-process fallback. */
export interface SharedState {
  rateLimiter: RateLimiter;
  resultCache: ResultCache;
  dnsAnswers: DnsAnswerStore;
  catchAll: CatchAllStore;
  hostLimiter: HostSessionLimiter;
  /** Requests in flight to one Mailchimp account, across every process. */
  inFlight: InFlightLimiter;
  /** Requests to one HubSpot portal in its rolling 10 seconds, across every process. */
  requestWindow: RequestWindow;
}

/** Builds every shared piece on one Redis client. */
export function sharedState(
  redis: Redis,
  clock: Clock,
  warn: (message: string) => void,
  probeTimeoutMs: number,
): SharedState {
  return {
    rateLimiter: withFallback<RateLimiter>(new RedisRateLimiter(redis), new MemoryRateLimiter(clock), {
      ...FALLBACKS.rateLimiter,
      warn,
    }),
    resultCache: withFallback<ResultCache>(new RedisResultCache(redis), new MemoryResultCache(), {
      ...FALLBACKS.resultCache,
      warn,
    }),
    dnsAnswers: withFallback<DnsAnswerStore>(
      new RedisDnsAnswerStore(redis),
      new MemoryDnsAnswerStore(clock, 10_000),
      { ...FALLBACKS.dnsAnswers, warn },
    ),
    catchAll: withFallback<CatchAllStore>(new RedisCatchAllStore(redis), new MemoryCatchAllStore(clock), {
      ...FALLBACKS.catchAll,
      warn,
    }),
    hostLimiter: withFallback<HostSessionLimiter>(
      new RedisHostLimiter(redis, {
        permits: SHARED_HOST_SESSIONS,
        maxWaitMs: probeTimeoutMs,
        // Short leases (renewed every ~3 s): a killed worker's slots come back within 10 s.
        leaseMs: 10_000,
      }),
      new MemoryHostLimiter(SHARED_HOST_SESSIONS),
      { ...FALLBACKS.hostLimiter, warn },
    ),
    inFlight: withFallback<InFlightLimiter>(
      // Short leases (renewed every ~3 s): a killed process's slots come back within 10 s.
      new RedisInFlightLimiter(redis, { leaseMs: 10_000 }),
      new MemoryInFlightLimiter(),
      { ...FALLBACKS.inFlight, warn },
    ),
    requestWindow: withFallback<RequestWindow>(new RedisRequestWindow(redis), new MemoryRequestWindow(), {
      ...FALLBACKS.requestWindow,
      warn,
    }),
  };
}
