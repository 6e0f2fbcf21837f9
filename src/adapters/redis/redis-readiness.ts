/**
 * Redis's line in /readyz (scale-out). Redis down never makes a process unready: rate limits and
 * caches then run on per-process memory and requests are still served. So the
 * answer is `ok` or `degraded`, never `error`.
 */
import type { Redis } from 'ioredis';

/**
 * PINGs Redis: `ok` on a reply, `degraded` otherwise. Bounded by the client's own command timeout
 * (see createRedisClient: refused at once while disconnected, abandoned after 150 ms unanswered).
 */
export async function redisReadiness(client: Pick<Redis, 'ping'>): Promise<'ok' | 'degraded'> {
  try {
    await client.ping();
    return 'ok';
  } catch {
    return 'degraded';
  }
}
