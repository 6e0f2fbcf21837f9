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
import type { FastifyInstance } from 'fastify';
import { handleClientError } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its (large) body as a stream, with an idle timeout of its own. */
    streamedBody?: boolean;
  }
}

/** Answers 408 and closes the socket of a request whose body is not in after `timeoutMs`. */
export function addBodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || request.routeOptions.config.streamedBody === true) {
      done();
      return;
    }
    const timer = setTimeout(
      () => {
        // `complete` is Node's own mark; `readableEnded` also covers an injected request (tests),
        // whose body arrived whole but which never sets it: a slow answer is not a slow body.
        if (raw.complete || raw.readableEnded || reply.sent) return;
        const timedOut = Object.assign(new Error('request body not received in time'), {
          code: 'ERR_HTTP_REQUEST_TIMEOUT',
        });
        handleClientError(timedOut, raw.socket);
      },
      Math.max(0, timeoutMs - reply.elapsedTime),
    );
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
