/**
 * Erasure for `mailvet erase`, which runs beside the server rather than in it: the store, the
 * shared result cache when there is one (Redis, in scale-out), and the erased addresses' id key
 * from the server secret. An embedded server's result cache lives in its own memory, out of the
 * command's reach: that entry ends with its TTL (MAILVET_RESULT_TTL), or at once through the API.
 */
import { deriveKey, KEY_PURPOSES, loadSecretKey } from '../adapters/secret-key.ts';
import { AuditTrail } from '../audit/audit-trail.ts';
import type { Config } from '../config.ts';
import { ErasureService } from '../privacy/erasure.ts';
import type { Store } from '../store.ts';
import type { ResultCache } from '../usage/ports.ts';

/** The service and what to close after it; `sharedCache` says whether the result cache was reached. */
export async function createCommandErasure(
  config: Config,
  store: Store,
): Promise<{ erasure: ErasureService; sharedCache: boolean; close: () => Promise<void> }> {
  const secret = await loadSecretKey(config);
  let cache: Pick<ResultCache, 'delete'> = { delete: async () => false };
  let close = async () => {};
  if (config.REDIS_URL !== undefined) {
    const [clients, { RedisResultCache }] = await Promise.all([
      import('../adapters/redis/redis-client.ts'),
      import('../adapters/result-cache/redis.ts'),
    ]);
    const redis = clients.createRedisClient(config.REDIS_URL, {
      commandTimeoutMs: config.MAILVET_REDIS_TIMEOUT_MS,
    });
    cache = new RedisResultCache(redis);
    close = () => clients.closeRedis(redis);
  }
  const erasure = new ErasureService({
    store: store.privacy,
    cache,
    idKey: deriveKey(secret, KEY_PURPOSES.erasures),
    audit: new AuditTrail({ log: store.audit }),
  });
  return { erasure, sharedCache: config.REDIS_URL !== undefined, close };
}
