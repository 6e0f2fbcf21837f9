/**
 * One log line per request, written when its response is sent (Fastify's own pair of lines is
 * turned off): the request id (the logger's `reqId`), the account when the request was
 * authenticated (never the key), the method, the route pattern (never the URL, which may hold
 * ids), the status, the response time, and the error code of a refused or failed one. Nothing
 * from the body or headers: addresses and keys never reach it.
 *
 * The line is written by Fastify's log controller at the end of every response (the extension
 * point Fastify offers for its own request lines), not by an onResponse hook: a hook costs every
 * request a promise and a turn. And it is written as pino writes a line, to the logger's own
 * destination, without going through pino's general path (serializers, the redaction of about
 * forty paths, the masking hook): its fields are ours, none of them a secret or an address, and
 * that path was about a tenth of a cached verification's CPU.
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import fp from 'fastify-plugin';
import pino, { type Logger } from 'pino';
import { toApiError } from '../errors.ts';
import { routeOf } from './metrics.ts';

/** The message of the request line. */
export const REQUEST_LINE = 'request completed';

/** Levels at which info lines are written. */
const INFO_WRITTEN: ReadonlySet<string> = new Set(['trace', 'debug', 'info']);
/** Pino's number for `info`. */
const INFO = 30;

/** The error code of a refused or failed request, kept for its line (no request decoration). */
const errorCodes = new WeakMap<FastifyRequest, string>();

/** Where a logger writes, and the fields every one of its lines carries (pid, hostname). */
interface LineTarget {
  stream: { write(line: string): unknown };
  bindings: string;
}

const targets = new WeakMap<object, LineTarget>();

function targetOf(log: Logger): LineTarget {
  let target = targets.get(log);
  if (target === undefined) {
    const own = log as unknown as Record<symbol, unknown>;
    target = {
      stream: own[pino.symbols.streamSym] as LineTarget['stream'],
      bindings: own[pino.symbols.chindingsSym] as string,
    };
    targets.set(log, target);
  }
  return target;
}

/** The request's line, as pino would write `log.info({...}, REQUEST_LINE)` with default options. */
export function requestLine(
  request: FastifyRequest,
  reply: FastifyReply,
  bindings: string,
  code = errorCodes.get(request),
): string {
  const accountId = request.caller?.accountId;
  return (
    `{"level":${INFO},"time":${Date.now()}${bindings},"reqId":${JSON.stringify(request.id)}` +
    (accountId === undefined ? '' : `,"accountId":${JSON.stringify(accountId)}`) +
    `,"method":${JSON.stringify(request.method)},"route":${JSON.stringify(routeOf(request))}` +
    `,"statusCode":${reply.statusCode},"responseTimeMs":${Math.round(reply.elapsedTime * 100) / 100}` +
    (code === undefined ? '' : `,"code":${JSON.stringify(code)}`) +
    `,"msg":"${REQUEST_LINE}"}\n`
  );
}

/**
 * Fastify's log controller with its request lines off (`disableRequestLogging`) but for ours,
 * written at completion when the logger writes info lines (a route may log above info: the
 * orchestrators' probes get no line).
 */
export class RequestLineController extends LogController {
  constructor() {
    super({ disableRequestLogging: true });
  }

  override requestCompleted(
    _error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (!INFO_WRITTEN.has(request.log.level)) return;
    const { stream, bindings } = targetOf(request.server.log as Logger);
    stream.write(requestLine(request, reply, bindings));
  }
}

/** Keeps the error code of a refused or failed request for its line, when info lines are written. */
export const requestLogPlugin = fp(async (app) => {
  if (!INFO_WRITTEN.has(app.log.level)) return;
  app.addHook('onError', async (request, _reply, error) => {
    errorCodes.set(request, toApiError(error).code);
  });
});
