/**
 * `mailvet worker`: a list-job worker only, no HTTP (scale-out). It shares the store
 * and Redis with the API processes; SIGTERM/SIGINT stop it after the lists in hand reach a safe
 * point (their state stays in the store, and another worker or a restart carries on).
 */
import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../config.ts';
import { createServices } from '../container/index.ts';
import { startWorker } from '../container/jobs.ts';
import { serveMetrics } from '../container/metrics.ts';
import { limitHeapGrowth } from './heap-growth.ts';

/** Runs the worker until a signal. */
export async function runWorker(): Promise<void> {
  limitHeapGrowth();
  const config = loadConfig();
  const services = await createServices(config);
  const { log } = services;
  // With MAILVET_METRICS_PORT the worker serves its own figures: each process is scraped.
  const metrics = await serveMetrics(config, services.metricsExposition, log).catch(async (error) => {
    await services.close();
    throw error;
  });
  const worker = startWorker(services);
  log.info({ store: services.store.kind, queue: services.queue.kind }, 'worker started');
  // The lists in hand reach a safe point, then the store and Redis close; a second signal exits at once.
  closeWithGrace(
    {
      delay: false,
      logger: { error: (message: unknown) => log.error({ err: message }, 'worker stop failed') },
    },
    async ({ signal, err }) => {
      if (err !== undefined) log.error({ err }, 'uncaught error: worker stopping');
      else log.info({ signal }, 'worker stopping: finishing the lists in hand');
      await worker.close();
      await metrics?.close();
      await services.close();
      log.info('worker stopped');
    },
  );
}
