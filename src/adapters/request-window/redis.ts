/**
 * The rolling request window across processes (scale-out): HubSpot counts a portal's requests
 * whichever of our processes made them, so the instants live in a Redis sorted set per key
 * (`mailvet:window:<key>`), trimmed and checked in one script so two processes cannot both take
 * the last place.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RequestWindow } from '../../integrations/ports.ts';

const RESERVE = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now + 1
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, window)
return 0
`;

export class RedisRequestWindow implements RequestWindow {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = 'mailvet:window:') {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async reserve(key: string, limit: number, windowMs: number): Promise<number> {
    // Redis's own clock: the processes' clocks may disagree by more than a request's worth.
    const [seconds, micros] = await this.#redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const wait = await this.#redis.eval(
      RESERVE,
      1,
      this.#prefix + key,
      now,
      windowMs,
      limit,
      `${now}:${randomUUID()}`,
    );
    return Number(wait);
  }
}
