/**
 * Token buckets in Redis, shared by every API process (scale-out mode).
 *
 * The refill and the take run as one Lua script, so they are atomic across processes: two
 * processes can never both spend the last token. The script reads Redis's own clock (`TIME`), so
 * processes whose clocks disagree still agree on how much a bucket has refilled. The decision's
 * header figures come from the same `decision()` as the in-process limiter, so a client sees the
 * same headers whichever implementation answered.
 */
import type { Redis } from 'ioredis';
import type { RateDecision, RateLimiter } from '../../usage/ports.ts';
import { decision } from './memory.ts';

/** Default key prefix; the bucket of key `k` lives in the hash `mailvet:rl:k`. */
export const RATE_LIMIT_KEY_PREFIX = 'mailvet:rl:';

// KEYS[1] the bucket hash {tokens, ms}; ARGV[1] the rate per second, ARGV[2] the burst. Returns {allowed, tokens}
// with tokens as a string: Lua numbers become integers on the way out, and the fraction matters.
// Numbers are stored with %.17g so nothing is lost to Lua's default 14-digit formatting (a
// millisecond timestamp already has 13 digits before the point).
const TAKE_TOKEN_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ms')
local tokens = tonumber(state[1])
local updated = tonumber(state[2])
if tokens == nil or updated == nil then
  tokens = capacity
else
  -- A server clock stepping back (failover to a replica) must not drain the bucket.
  local elapsed = math.max(0, now - updated)
  tokens = math.min(capacity, tokens + elapsed / 1000 * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'ms', string.format('%.17g', now))
-- Once full again the bucket holds no information: let it vanish then.
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate * 1000) + 1)
return {allowed, string.format('%.17g', tokens)}
`;

const COMMAND = 'mailvetTakeToken';

type TokenCommand = (key: string, ratePerSecond: number, burst: number) => Promise<[number, string]>;

/** The Redis-backed token bucket; atomic across processes, timed by the Redis server's clock. */
export class RedisRateLimiter implements RateLimiter {
  readonly #takeToken: TokenCommand;
  readonly #prefix: string;

  constructor(client: Redis, keyPrefix = RATE_LIMIT_KEY_PREFIX) {
    // defineCommand sends EVALSHA, and EVAL on a connection that has not loaded it yet (a fresh
    // socket, or a restarted server): no separate SCRIPT LOAD step to keep in sync.
    const commands = client as unknown as Record<string, TokenCommand | undefined>;
    if (typeof commands[COMMAND] !== 'function') {
      client.defineCommand(COMMAND, { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
    }
    this.#takeToken = (commands[COMMAND] as TokenCommand).bind(client);
    this.#prefix = keyPrefix;
  }

  /** Takes one token from the named bucket; rejects when Redis does not answer (see the fallback). */
  async take(bucketName: string, ratePerSecond: number, burst = ratePerSecond * 2): Promise<RateDecision> {
    if (!(ratePerSecond > 0 && Number.isFinite(ratePerSecond))) {
      throw new RangeError(`rate limit must be a positive number, got ${ratePerSecond}`);
    }
    if (!(burst >= 1 && Number.isFinite(burst)))
      throw new RangeError(`burst must be at least 1, got ${burst}`);
    const [allowed, tokens] = await this.#takeToken(this.#prefix + bucketName, ratePerSecond, burst);
    return decision(allowed === 1, Number.parseFloat(tokens), burst, ratePerSecond);
  }
}
