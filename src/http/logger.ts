/**
 * Logger settings (pino, through Fastify). Logs never hold API keys or their hashes (redacted
 * wherever they could appear) and hold email addresses only at debug level: routes log them with
 * `debug`, requests are logged without bodies or headers, and text from elsewhere (an error's
 * message, an SMTP reply, a platform's answer) is masked at info and above (address-mask.ts).
 */
import type { FastifyLoggerOptions, FastifyServerOptions } from 'fastify';
import { maskedLogMethod } from './address-mask.ts';

/** Where and how much to log. */
export interface LoggerSettings {
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Defaults to standard output. */
  stream?: { write(line: string): void };
}

/** Paths redacted from every log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'keyHash',
  '*.keyHash',
  // Dashboard sessions and passwords.
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'password',
  '*.password',
  '*.current_password',
  '*.new_password',
  'passwordHash',
  '*.passwordHash',
  'token',
  '*.token',
  'tokenHash',
  '*.tokenHash',
  // Integrations' credentials.
  'api_key',
  '*.api_key',
  'accessToken',
  '*.accessToken',
  'access_token',
  '*.access_token',
  'secret',
  '*.secret',
  'sealedCredential',
  '*.sealedCredential',
  'credential',
  '*.credential',
];

/** The pino options of these settings: the level, and the redaction and masking every log line gets. */
export function pinoOptions(settings: LoggerSettings) {
  return {
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    hooks: { logMethod: maskedLogMethod },
  };
}

/** Fastify's `logger` option for these settings; `false` turns logging off. */
export function loggerOptions(settings: LoggerSettings | false | undefined): FastifyServerOptions['logger'] {
  if (settings === false || settings === undefined) return false;
  const options: FastifyLoggerOptions & Record<string, unknown> = pinoOptions(settings);
  if (settings.stream !== undefined) options.stream = settings.stream;
  return options;
}
