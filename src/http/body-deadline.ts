/**
 * How long a request may take to arrive. Node's own request timeout is one figure for every route,
 * and no one figure fits both a 1 MB verification body (seconds at most: anything slower holds a
 * socket for nothing) and a list upload of up to 512 MB (minutes on a slow uplink). So Node's is
 * off; this hook gives each request a deadline for its whole body, except on routes marked
 * `streamedBody`, which read their body with a timeout between chunks instead (upload-body.ts).
 * The request head has its own bound either way (the server's headers timeout).
 *
 * The deadline counts from the request's start, whatever hooks ran before this one: the start is
 * the one Fastify keeps for each reply when it logs (the server always has a logger, if silent);
 * an app without one (some tests) counts from the moment the deadline is set.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { handleClientError } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its (large) body as a stream, with an idle timeout of its own. */
    streamedBody?: boolean;
  }
}

/**
 * How often the requests still receiving a body are looked at: a slow body is answered at most
 * this long after its deadline.
 */
export const SWEEP_MS = 100;

/** Answers 408 and closes the socket of a request whose body is not in after `timeoutMs`. */
export function addBodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  // One sweep for the app instead of a timer and a 'close' listener for each request, which cost
  // a cached verification more than the deadline's own work: a request is kept here, with its
  // deadline, from its first hook until its body is in (the preValidation hook, which every
  // route's request reaches once its body is parsed), and the sweep drops those answered meanwhile.
  const receiving = new Map<FastifyReply, number>();
  let sweeper: NodeJS.Timeout | undefined;

  const sweep = () => {
    const now = performance.now();
    for (const [reply, deadline] of receiving) {
      if (bodyIsIn(reply)) receiving.delete(reply);
      else if (now >= deadline) {
        receiving.delete(reply);
        timeOut(reply);
      }
    }
    if (receiving.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.complete || request.routeOptions.config.streamedBody === true) {
      done();
      return;
    }
    // From the request's start: hooks before this one may have taken some of it, or all.
    receiving.set(reply, performance.now() + timeoutMs - reply.elapsedTime);
    sweeper ??= setInterval(sweep, SWEEP_MS).unref();
    done();
  });
  app.addHook('preValidation', (_request, reply, done) => {
    receiving.delete(reply);
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    receiving.clear();
    done();
  });
}

// `complete` is Node's own mark; `readableEnded` also covers an injected request (tests), whose
// body arrived whole but which never sets it: a slow answer is not a slow body.
function bodyIsIn(reply: FastifyReply): boolean {
  const raw = reply.request.raw;
  return raw.complete || raw.readableEnded || raw.destroyed || reply.sent;
}

function timeOut(reply: FastifyReply): void {
  const timedOut = Object.assign(new Error('request body not received in time'), {
    code: 'ERR_HTTP_REQUEST_TIMEOUT',
  });
  handleClientError(timedOut, reply.request.raw.socket);
}
