/**
 * A counting semaphore per key in Redis, shared by every process (scale-out mode): the MX hosts'
 * session slots and the Mailchimp accounts' request slots are both this.
 *
 * Each key is a sorted set: member = a lease id, score = when the lease expires (Redis server
 * time, so skewed process clocks agree). Acquiring is one Lua script: drop expired leases, then add
 * ours if fewer than `permits` remain. A holder renews its lease while it holds it; a killed process
 * stops renewing, so its slot comes back within `leaseMs`. Waiters poll with a short, jittered,
 * growing back-off.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// KEYS[1] the lease set; ARGV[1] lease id, ARGV[2] permits, ARGV[3] lease ms. 1 = granted.
const ACQUIRE_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
`;

// Pushes a live lease's expiry forward; 0 when it was already reclaimed (nothing is re-added).
const RENEW_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

type LeaseCommand = (key: string, ...args: Array<string | number>) => Promise<number>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface LeaseSemaphoreOptions {
  /** A lease not renewed for this long is reclaimed, ms (default 60,000); renewed every third. */
  leaseMs?: number;
  random?: () => number;
}

/** Slots per key, capped across every process sharing the Redis. */
export class RedisLeaseSemaphore {
  readonly #client: Redis;
  readonly #acquireLease: LeaseCommand;
  readonly #renewLease: LeaseCommand;
  readonly #leaseMs: number;
  readonly #random: () => number;

  constructor(client: Redis, options: LeaseSemaphoreOptions = {}) {
    const commands = client as unknown as Record<string, LeaseCommand | undefined>;
    if (typeof commands.mailvetAcquireLease !== 'function') {
      client.defineCommand('mailvetAcquireLease', { numberOfKeys: 1, lua: ACQUIRE_LUA });
      client.defineCommand('mailvetRenewLease', { numberOfKeys: 1, lua: RENEW_LUA });
    }
    this.#client = client;
    this.#acquireLease = (commands.mailvetAcquireLease as LeaseCommand).bind(client);
    this.#renewLease = (commands.mailvetRenewLease as LeaseCommand).bind(client);
    this.#leaseMs = Math.max(30, Math.round(options.leaseMs ?? 60_000));
    this.#random = options.random ?? Math.random;
  }

  /**
   * Waits for one of `permits` slots of `key` for up to `waitMs`; resolves with its release, or
   * null when the wait ran out. Rejects when Redis fails.
   */
  async acquire(key: string, permits: number, waitMs: number): Promise<(() => void) | null> {
    const lease = randomUUID();
    const deadline = performance.now() + waitMs;
    let delayMs = 5;
    for (;;) {
      let granted: number;
      try {
        granted = await this.#acquireLease(key, lease, Math.max(1, permits), this.#leaseMs);
      } catch (error) {
        // A timed-out call may still have run: drop the lease it may have taken.
        this.#client.zrem(key, lease).catch(() => {});
        throw error;
      }
      if (granted === 1) return this.#hold(key, lease);
      if (performance.now() + delayMs > deadline) return null;
      await sleep(delayMs * (0.5 + this.#random()));
      delayMs = Math.min(delayMs * 2, 100);
    }
  }

  /** Keeps the lease alive until released; the release is idempotent and never throws. */
  #hold(key: string, lease: string): () => void {
    const renewal = setInterval(
      () => {
        this.#renewLease(key, lease, this.#leaseMs).catch(() => {});
      },
      Math.max(10, Math.floor(this.#leaseMs / 3)),
    );
    renewal.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      // If this fails the lease simply expires within leaseMs.
      this.#client.zrem(key, lease).catch(() => {});
    };
  }
}
