/**
 * `mailvet serve` (and `npm start`): the HTTP API. Graceful shutdown lives in `startServer`.
 */
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';

/** Runs the API until SIGTERM or SIGINT; `worker` undefined keeps the mode's default. */
export async function runServe(options: { worker?: boolean } = {}): Promise<void> {
  await startServer(loadConfig(), { worker: options.worker });
}
