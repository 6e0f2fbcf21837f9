/**
 * The body deadline bounds how long a request's body may take to arrive, not how long the answer
 * takes: a request whose body is in must be answered however slow the work, injected (tests) or
 * over a socket.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { addBodyDeadline } from '../../src/http/body-deadline.ts';

test('a slow answer to a request whose body arrived is not cut off by the body deadline', async () => {
  const app = Fastify();
  addBodyDeadline(app, 50);
  app.post('/slow', async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { echoed: request.body };
  });
  try {
    const injected = await app.inject({ method: 'POST', url: '/slow', payload: { a: 1 } });
    assert.equal(injected.statusCode, 200);
    assert.deepEqual(injected.json(), { echoed: { a: 1 } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"b":2}',
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { echoed: { b: 2 } });
  } finally {
    await app.close();
  }
});
