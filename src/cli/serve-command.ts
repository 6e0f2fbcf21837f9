/**
 * `mailvet serve` (and `npm start`): the HTTP API. Graceful shutdown lives in `startServer`.
 */
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';

/** Runs the API until SIGTERM or SIGINT. */
export async function runServe(): Promise<void> {
  await startServer(loadConfig());
}
