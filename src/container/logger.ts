/**
 * The one logger of a process: the API's requests, the worker's jobs and every start-up warning
 * (Redis not answering yet, an operator list line) go to the same pino instance, redacted alike.
 */
import pino, { type Logger } from 'pino';
import { type LoggerSettings, pinoOptions } from '../http/logger.ts';

export type { Logger };

/** A pino logger for these settings; `false` logs nothing. */
export function createLogger(settings: LoggerSettings | false = { level: 'info' }): Logger {
  if (settings === false) return pino({ level: 'silent' });
  const options = pinoOptions(settings);
  return settings.stream === undefined ? pino(options) : pino(options, settings.stream);
}
