/**
 * Graceful close, the part Fastify leaves to us: once the server is closing, every response asks
 * the client to close its connection. Without it, a keep-alive connection whose request was in
 * flight when the close began stays open after its response, and the close waits out the
 * keep-alive timeout (72 s) for it.
 */
import fp from 'fastify-plugin';

/** Adds `Connection: close` to responses sent after the close began. */
export const gracefulClosePlugin = fp(async (app) => {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
});
