/**
 * One log line per request, written when its response is sent (Fastify's own pair of lines is
 * turned off): the request id (the logger's `reqId`), the account when the request was
 * authenticated (never the key), the method, the route pattern (never the URL, which may hold
 * ids), the status, the response time, and the error code of a refused or failed one. Nothing
 * from the body or headers: addresses and keys never reach it.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { toApiError } from '../errors.ts';
import { routeOf } from './metrics.ts';

/** The message of the request line. */
export const REQUEST_LINE = 'request completed';

/** Levels at which info lines are written. */
const INFO_WRITTEN: ReadonlySet<string> = new Set(['trace', 'debug', 'info']);

/** Adds the request line (onResponse) when the logger writes info lines. */
export const requestLogPlugin = fp(async (app) => {
  // Logging off, or above info: no hook at all, so requests pay nothing for it.
  if (!INFO_WRITTEN.has(app.log.level)) return;
  // The error code of a refused or failed request, kept for its line (no request decoration).
  const codes = new WeakMap<FastifyRequest, string>();
  // The line is made of the fields below only, none of them a secret, so it skips the redaction
  // every other line gets (about forty paths, wildcards among them): that was a tenth of a cached
  // verification's time. The masking of addresses (a hook, which the child keeps) still applies.
  const lines = app.log.child({}, { redact: [] });
  app.addHook('onError', async (request, _reply, error) => {
    codes.set(request, toApiError(error).code);
  });
  app.addHook('onResponse', async (request, reply) => {
    // A route may log above info (the orchestrators' probes): its requests get no line.
    if (!INFO_WRITTEN.has(request.log.level)) return;
    const code = codes.get(request);
    lines.info(
      {
        reqId: request.id,
        ...(request.caller?.accountId !== undefined && { accountId: request.caller.accountId }),
        method: request.method,
        route: routeOf(request),
        statusCode: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
        ...(code !== undefined && { code }),
      },
      REQUEST_LINE,
    );
  });
});
