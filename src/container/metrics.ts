/**
 * Metrics wiring: on when MAILVET_METRICS_PORT or MAILVET_METRICS_TOKEN is set, and only then is
 * prom-client loaded (start-up time and idle memory are measured). Each process (API or worker)
 * keeps and serves its own figures.
 */
import { type Config, ConfigError } from '../config.ts';
import { listenForMetrics, type MetricsListener } from '../http/metrics-listener.ts';
import type { Metrics, MetricsExposition } from '../observability/ports.ts';
import type { Logger } from './logger.ts';

/** The configured metrics, or undefined when they are off. */
export async function createMetrics(config: Config): Promise<Metrics | undefined> {
  if (config.MAILVET_METRICS_PORT === undefined && config.MAILVET_METRICS_TOKEN === undefined)
    return undefined;
  const { PrometheusMetrics } = await import('../adapters/metrics/prometheus.ts');
  return new PrometheusMetrics();
}

/** With MAILVET_METRICS_PORT, `/metrics` on a listener of its own at HOST; undefined otherwise. */
export async function serveMetrics(
  config: Config,
  exposition: MetricsExposition | undefined,
  log: Logger,
): Promise<MetricsListener | undefined> {
  if (config.MAILVET_METRICS_PORT === undefined || exposition === undefined) return undefined;
  let listener: MetricsListener;
  try {
    listener = await listenForMetrics(
      exposition,
      { host: config.HOST, port: config.MAILVET_METRICS_PORT, token: config.MAILVET_METRICS_TOKEN },
      (error) => log.error({ err: error }, 'metrics scrape failed'),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${config.HOST}:${config.MAILVET_METRICS_PORT}`;
    if (code === 'EADDRINUSE') throw new ConfigError([`MAILVET_METRICS_PORT: ${where} is already in use`]);
    if (code === 'EACCES') throw new ConfigError([`MAILVET_METRICS_PORT: ${where} needs privileges`]);
    throw error;
  }
  log.info(`metrics on ${listener.url}`);
  return listener;
}
