/**
 * What every response carries, set in one onSend hook (each hook costs every request a turn of
 * Fastify's hook runner): its request id as `X-Request-Id` (errors and 404s included), and, once
 * the server is closing, `Connection: close`. That second part is the graceful close Fastify
 * leaves to us: without it, a keep-alive connection whose request was in flight when the close
 * began stays open after its response, and the close waits out the keep-alive timeout (72 s).
 */
import fp from 'fastify-plugin';

/** Adds the request id, and `Connection: close` once the close began, to every response. */
export const responseHeadersPlugin = fp(async (app) => {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
});
