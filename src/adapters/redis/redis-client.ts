/**
 * The one place that builds ioredis clients for scale-out mode. Every caller of Redis here sits on
 * a request's path and has an in-process fallback, so the client is tuned to fail fast rather than
 * to wait: a command that cannot be sent now is refused at once, one that gets no answer is
 * abandoned after a short timeout, and reconnection runs in the background.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** Tuning for {@link createRedisClient}; defaults suit a request path with a fallback. */
export interface RedisClientOptions {
  /** Abandon a command with no reply after this many ms (default 150). */
  commandTimeoutMs?: number;
  /** Give up one connection attempt after this many ms (default 1000). */
  connectTimeoutMs?: number;
  /** Upper bound of the reconnection back-off in ms (default 1000). */
  maxReconnectDelayMs?: number;
  /** Told about every connection error; ioredis would print them to stderr without a listener. */
  onError?: (error: Error) => void;
}

/** Creates a connecting (not lazy) ioredis client that fails fast and reconnects by itself. */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 1_000;
  const redisOptions: RedisOptions = {
    lazyConnect: false,
    // Commands issued while disconnected are refused immediately instead of queued: a request
    // must not wait for Redis to come back, it uses the in-process fallback instead.
    enableOfflineQueue: false,
    // A command lost with its connection is failed, not replayed after reconnecting: replaying a
    // token take would charge the key twice.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 150,
    connectTimeout: options.connectTimeoutMs ?? 1_000,
    // Keep trying for ever, but never more than `maxDelay` apart, so recovery is quick.
    retryStrategy: (attempt) => Math.min(attempt * 50, maxDelay),
  };
  const client = new Redis(url, redisOptions);
  const onError = options.onError ?? (() => {});
  client.on('error', onError);
  return client;
}

/**
 * Waits until the client is ready, at most `timeoutMs`; true when ready. Never rejects. Await it at
 * start-up so the first requests do not fall back (and warn) merely because the socket is still
 * connecting.
 */
export function waitUntilReady(client: Redis, timeoutMs = 2_000): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}

/** Closes the client: QUIT when connected (pending replies arrive), else drops the socket. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
