/**
 * The one logger of a process: the API's requests, the worker's jobs and every start-up warning
 * (Redis not answering yet, an operator list line) go to the same pino instance, redacted alike.
 *
 * Lines to standard output are gathered and written a batch at a time: once LOG_BATCH_LENGTH
 * characters wait, and never more than LOG_BATCH_MS late. One write per line (one system call
 * each, and every request has a line) was a twentieth of a cached verification's CPU. The batch is
 * written when the process exits, after an uncaught error too; only a process killed outright
 * (SIGKILL, out of memory) loses the lines of its last LOG_BATCH_MS.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { type LoggerSettings, pinoOptions } from '../http/logger.ts';

export type { Logger };

/** Characters gathered before a write (about as many bytes: log lines are mostly ASCII). */
export const LOG_BATCH_LENGTH = 4096;
/** The most a line waits, ms. */
export const LOG_BATCH_MS = 250;

/** A pino logger for these settings; `false` logs nothing. */
export function createLogger(settings: LoggerSettings | false = { level: 'info' }): Logger {
  if (settings === false) return pino({ level: 'silent' });
  const options = pinoOptions(settings);
  return pino(options, settings.stream ?? standardOutput());
}

let stdout: LineBatch | undefined;

/** Standard output, batched; one per process, whatever the number of loggers writing to it. */
function standardOutput(): DestinationStream {
  if (stdout !== undefined) return stdout;
  // sonic-boom writes (synchronously, retrying while a pipe is full); the batching is ours.
  const batch = new LineBatch(pino.destination({ dest: 1, minLength: 0, sync: true }), LOG_BATCH_LENGTH);
  setInterval(() => batch.flush(), LOG_BATCH_MS).unref();
  process.on('exit', () => {
    try {
      batch.flushSync();
    } catch {
      // Standard output is gone (a closed pipe): nothing left to write to.
    }
  });
  stdout = batch;
  return batch;
}

/** What a batch is written to: sonic-boom's destination. */
interface LineSink {
  write(data: string): boolean;
  flushSync(): void;
}

/**
 * Lines kept until about `batchLength` characters are pending, then written as one string. Not
 * sonic-boom's own `minLength`: it measures the byte length of its whole pending buffer at every
 * write, which for a batch of short lines cost more than everything else about writing them.
 * Characters, not bytes, decide when: a batch of non-ASCII lines is a little larger, no matter.
 */
export class LineBatch implements DestinationStream {
  readonly #sink: LineSink;
  readonly #batchLength: number;
  #lines: string[] = [];
  #length = 0;

  constructor(sink: LineSink, batchLength: number) {
    this.#sink = sink;
    this.#batchLength = batchLength;
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= this.#batchLength) this.flush();
  }

  /** Writes what is pending (pino's `logger.flush(cb)` passes a callback). */
  flush(done?: (error?: Error) => void): void {
    if (this.#lines.length > 0) {
      const batch = this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join('');
      this.#lines = [];
      this.#length = 0;
      this.#sink.write(batch);
    }
    done?.();
  }

  /** Writes what is pending and waits until the destination has taken it all. */
  flushSync(): void {
    this.flush();
    this.#sink.flushSync();
  }
}
