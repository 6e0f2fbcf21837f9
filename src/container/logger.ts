/**
 * The one logger of a process: the API's requests, the worker's jobs and every start-up warning
 * (Redis not answering yet, an operator list line) go to the same pino instance, redacted alike.
 *
 * Lines to standard output are gathered and written a batch at a time: up to LOG_BATCH_BYTES, and
 * never more than LOG_BATCH_MS late. One write per line (one system call each, and every request
 * has a line) was a twentieth of a cached verification's CPU. The batch is written when the
 * process exits, after an uncaught error too; only a process killed outright (SIGKILL, out of
 * memory) loses the lines of its last LOG_BATCH_MS.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { type LoggerSettings, pinoOptions } from '../http/logger.ts';

export type { Logger };

/** Bytes gathered before a write. */
export const LOG_BATCH_BYTES = 4096;
/** The most a line waits, ms. */
export const LOG_BATCH_MS = 250;

/** A pino logger for these settings; `false` logs nothing. */
export function createLogger(settings: LoggerSettings | false = { level: 'info' }): Logger {
  if (settings === false) return pino({ level: 'silent' });
  const options = pinoOptions(settings);
  return pino(options, settings.stream ?? standardOutput());
}

let stdout: ReturnType<typeof pino.destination> | undefined;

/** Standard output, batched; one per process, whatever the number of loggers writing to it. */
function standardOutput(): DestinationStream {
  if (stdout !== undefined) return stdout;
  const destination = pino.destination({ dest: 1, minLength: LOG_BATCH_BYTES, sync: true });
  setInterval(() => destination.flush(), LOG_BATCH_MS).unref();
  process.on('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // Standard output is gone (a closed pipe): nothing left to write to.
    }
  });
  stdout = destination;
  return destination;
}
