/**
 * `mailvet serve` (and `npm start`): the HTTP API. Graceful shutdown lives in `startServer`.
 */
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';
import { UsageError } from './usage-error.ts';

/** Runs the API until SIGTERM or SIGINT; `worker` undefined keeps the mode's default. */
export async function runServe(options: { worker?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  try {
    await startServer(config, { worker: options.worker });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${config.HOST}:${config.PORT}`;
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `${where} is already in use: stop what listens there, or set PORT to another port`,
      );
    if (code === 'EACCES')
      throw new UsageError(`${where} needs privileges this process does not have: set PORT to 1024 or above`);
    throw error;
  }
}
