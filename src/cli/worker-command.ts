/**
 * `mailvet worker`: a list-job worker only, no HTTP (DESIGN §5, scale-out). It shares the store
 * and Redis with the API processes; SIGTERM/SIGINT stop it after the lists in hand reach a safe
 * point (their state stays in the store, and another worker or a restart carries on).
 */
import { loadConfig } from '../config.ts';
import { createServices } from '../container/index.ts';
import { startWorker } from '../container/list-jobs.ts';

/** Runs the worker until a signal. */
export async function runWorker(): Promise<void> {
  const config = loadConfig();
  const services = await createServices(config);
  const { log } = services;
  const worker = startWorker(services, (level, message, fields) => log[level](fields ?? {}, message));
  log.info({ store: services.store.kind, queue: services.queue.kind }, 'worker started');
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'worker stopping: finishing the lists in hand');
    worker
      .close()
      .then(() => services.close())
      .then(
        () => {
          log.info('worker stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'worker stop failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
