/**
 * `mailvet serve` (and `npm start`): the HTTP API. Graceful shutdown lives in `startServer`.
 */
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';
import { limitHeapGrowth } from './heap-growth.ts';
import { storeProblem } from './plain-errors.ts';
import { UsageError } from './usage-error.ts';

/** Runs the API until SIGTERM or SIGINT; `worker` undefined keeps the mode's default. */
export async function runServe(options: { worker?: boolean } = {}): Promise<void> {
  limitHeapGrowth();
  const config = loadConfig();
  let url: string;
  try {
    ({ url } = await startServer(config, { worker: options.worker }));
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    const where = `${config.HOST}:${config.PORT}`;
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `${where} is already in use: stop what listens there, or set PORT to another port`,
      );
    // Only the listening socket's EACCES is the port's: the data directory's is a path's.
    if (code === 'EACCES' && syscall === 'listen')
      throw new UsageError(`${where} needs privileges this process does not have: set PORT to 1024 or above`);
    throw storeProblem(error, config) ?? error;
  }
  // The one line a person starting it reads, beside the JSON log lines meant for machines.
  process.stdout.write(`Mailvet is listening on ${addressToVisit(url)} — dashboard and API\n`);
}

/** The URL to open: a server listening on every address (0.0.0.0, ::) is reached at localhost. */
export function addressToVisit(url: string): string {
  return url.replace(/^http:\/\/(?:0\.0\.0\.0|\[::\])(?=:\d+$)/, 'http://localhost');
}
