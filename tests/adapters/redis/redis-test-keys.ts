/**
 * Redis clients for tests, with key prefixes of this run's own: the Redis at REDIS_URL may be
 * shared with other suites and other runs, so each run writes under `mailvet-test:<uuid>:` only
 * and deletes exactly those keys at the end.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis, createRedisClient, waitUntilReady } from '../../../src/adapters/redis/redis-client.ts';

/** Clients opened for one test file, and the prefixes they wrote under. */
export interface TestRedis {
  /** A new, ready client (a separate connection, like another process's). */
  connect(): Promise<Redis>;
  /** A fresh key prefix under this run's namespace, e.g. `mailvet-test:<uuid>:rl:`. */
  prefix(kind: string): string;
  /** Deletes every key this run wrote and closes every client. */
  cleanup(): Promise<void>;
}

/** Opens the Redis at `url` for one test file. */
export function testRedis(url: string): TestRedis {
  const namespace = `mailvet-test:${randomUUID()}:`;
  const clients: Redis[] = [];
  return {
    async connect() {
      // A roomier timeout than production's: a busy CI machine must not turn into a fallback here.
      const client = createRedisClient(url, { commandTimeoutMs: 2_000 });
      clients.push(client);
      if (!(await waitUntilReady(client, 5_000))) throw new Error(`Redis at ${url} not ready`);
      return client;
    },
    prefix(kind) {
      return `${namespace}${kind}:`;
    },
    async cleanup() {
      const [first] = clients;
      if (first?.status === 'ready') {
        for await (const keys of first.scanStream({ match: `${namespace}*`, count: 500 })) {
          if ((keys as string[]).length > 0) await first.del(...(keys as string[]));
        }
      }
      await Promise.all(clients.map((client) => closeRedis(client)));
    },
  };
}
