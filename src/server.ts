/**
 * Starts the API: wires the services, builds the app, listens, and shuts down gracefully on
 * SIGTERM/SIGINT (stop accepting, let in-flight requests finish, close the store). `mailvet serve`
 * calls `startServer(loadConfig())`.
 */
import type { AddressInfo } from 'node:net';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { logDoctorSummary } from './container/doctor.ts';
import { createServices, type ServiceOverrides } from './container/index.ts';
import { startWorker } from './container/jobs.ts';
import { createLogger } from './container/logger.ts';
import { openSignupWarning } from './container/mail.ts';
import { serveMetrics } from './container/metrics.ts';
import { RETIRED_OPERATORS_WARNING } from './container/store.ts';
import { buildApp } from './http/app.ts';
import type { LoggerSettings } from './http/logger.ts';
import type { MetricsListener } from './http/metrics-listener.ts';
import type { JobRuntime } from './jobs/runtime.ts';
import type { Store } from './store.ts';

/** Knobs of the running server; the defaults suit production. */
export interface StartServerOptions {
  logger?: LoggerSettings | false;
  /** Install SIGTERM/SIGINT handlers that close the server and end the process (default true). */
  handleSignals?: boolean;
  /** In-flight requests get this long to finish after a signal, ms, before the process exits 1. */
  shutdownTimeoutMs?: number;
  /** Time allowed to receive a whole request, ms: bounds slow clients (slowloris). */
  requestTimeoutMs?: number;
  /** Socket inactivity allowed, ms: above the slowest verification (SMTP probes take seconds). */
  connectionTimeoutMs?: number;
  /**
   * Run a list-job worker in this process: by default yes in embedded mode (nothing else would run
   * the lists) and no in scale-out (`mailvet worker` processes do).
   */
  worker?: boolean;
  /** Platforms offered beside the built-in ones (an adapter under test). */
  moreProviders?: ServiceOverrides['moreProviders'];
}

/** A listening server. */
export interface RunningServer {
  app: FastifyInstance;
  /** `http://host:port` it listens on (the real port when PORT=0). */
  url: string;
  /** The store it runs on (closed by `close`). */
  store: Store;
  /** `http://host:port/metrics` of the metrics listener, with MAILVET_METRICS_PORT. */
  metricsUrl?: string;
  /** Graceful close: stop accepting, finish in-flight requests, close the store. Idempotent. */
  close(): Promise<void>;
}

const DEFAULTS = {
  shutdownTimeoutMs: 30_000,
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 120_000,
} as const;

/** Starts the API on HOST:PORT and returns once it listens. */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const log = createLogger(options.logger ?? { level: config.MAILVET_LOG_LEVEL });
  const services = await createServices(config, {
    log,
    ...(options.moreProviders && { moreProviders: options.moreProviders }),
  });
  let app: FastifyInstance;
  let metricsListener: MetricsListener | undefined;
  try {
    app = buildApp(
      {
        ...services,
        uploadIdleTimeoutMs: config.MAILVET_UPLOAD_IDLE_TIMEOUT_MS,
        uploadTimeoutMs: config.MAILVET_UPLOAD_TIMEOUT_MS,
        metricsToken: config.MAILVET_METRICS_TOKEN,
      },
      {
        // Logging off: Fastify's no-op logger, which makes no per-request child logger (a silent
        // pino one still does, and costs a quarter of a cached request's time).
        ...(options.logger === false ? { logger: false } : { loggerInstance: log }),
        requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
        connectionTimeoutMs: options.connectionTimeoutMs ?? DEFAULTS.connectionTimeoutMs,
        connectionLimits: {
          maxConnections: config.MAILVET_MAX_CONNECTIONS,
          perClientAddress: config.MAILVET_MAX_CONNECTIONS_PER_CLIENT,
          headersTimeoutMs: config.MAILVET_HEADERS_TIMEOUT_MS,
          keepAliveTimeoutMs: config.MAILVET_KEEP_ALIVE_TIMEOUT_MS,
        },
      },
    );
    // Runs after the server stopped accepting and in-flight requests finished: the worker stops
    // (its lists stay runnable in the store) before the store and queue close.
    let worker: JobRuntime | undefined;
    app.addHook('onClose', async () => {
      await metricsListener?.close();
      await worker?.close();
      await services.close();
    });
    metricsListener = await serveMetrics(config, services.metricsExposition, log);
    await app.listen({ host: config.HOST, port: config.PORT });
    if (options.worker ?? config.REDIS_URL === undefined) {
      worker = startWorker(services);
    }
  } catch (error) {
    await metricsListener?.close().catch(() => {});
    await services.close().catch(() => {});
    throw error;
  }

  const url = listeningUrl(app);
  app.log.info({ store: services.store.kind }, `listening on ${url}`);
  const openSignup = openSignupWarning(config);
  if (openSignup !== null) log.warn(openSignup);
  if (config.MAILVET_OPERATORS.length > 0) log.warn(RETIRED_OPERATORS_WARNING);
  // After listening, in the background: /healthz never waits for port 25 or a blocklist.
  if (config.MAILVET_SMTP_PROBE && services.doctor !== undefined) logDoctorSummary(services.doctor, log);

  let closing: Promise<void> | undefined;
  let detachSignals = (): void => {};
  const close = (): Promise<void> => {
    closing ??= app.close().finally(() => detachSignals());
    return closing;
  };
  if (options.handleSignals ?? true) {
    detachSignals = handleSignals(app, close, options.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs);
  }
  return {
    app,
    url,
    store: services.store,
    ...(metricsListener && { metricsUrl: metricsListener.url }),
    close,
  };
}

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The first signal (or an uncaught error) closes gracefully and exits (0, or 1 after an error); a
 * second signal, or the deadline, exits 1 at once. Returns a function that removes the handlers
 * (after a close that no signal began).
 */
function handleSignals(app: FastifyInstance, close: () => Promise<void>, timeoutMs: number): () => void {
  const log = app.log;
  const grace = closeWithGrace(
    {
      delay: timeoutMs,
      logger: { error: (message: unknown) => log.error({ err: message }, 'shutdown failed') },
      onSecondSignal: (signal) => log.warn({ signal }, 'second signal: exiting now'),
      onTimeout: () => log.error({ timeoutMs }, 'in-flight requests did not finish in time: exiting'),
    },
    async ({ signal, err }) => {
      if (err !== undefined) log.error({ err }, 'uncaught error: shutting down');
      else log.info({ signal }, 'shutting down: finishing in-flight requests');
      await close();
      log.info('shut down');
    },
  );
  return () => grace.uninstall();
}
