/**
 * The body deadline bounds how long a request's body may take to arrive, not how long the answer
 * takes: a request whose body is in must be answered however slow the work, injected (tests) or
 * over a socket.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import Fastify from 'fastify';
import { addBodyDeadline, SWEEP_MS } from '../../src/http/body-deadline.ts';

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

test('the deadline counts from the request start, whatever hooks ran before it', async () => {
  // With a logger, as the server runs: Fastify then keeps each reply's start time.
  const app = Fastify({ logger: { level: 'silent' } });
  // A slow onRequest hook (authentication under load) before the deadline's own.
  app.addHook('onRequest', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });
  addBodyDeadline(app, 1000);
  app.post('/echo', async (request) => ({ echoed: request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  try {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a":',
    );
    let answer = '';
    socket.on('data', (data) => {
      answer += data.toString();
    });
    await once(socket, 'close');
    const elapsed = performance.now() - started;
    assert.match(answer, /^HTTP\/1\.1 408 /);
    // Counted from the start, the second it allowed had passed when the hook ended: the answer
    // comes then (1.5 s), not a whole deadline later (2.5 s).
    assert.ok(elapsed >= 1400 && elapsed < 2200, `closed after ${Math.round(elapsed)} ms`);
  } finally {
    await app.close();
  }
});

test('a request answered before its body came in gets no 408 afterwards', async () => {
  const app = Fastify();
  addBodyDeadline(app, 200);
  // Refused at once, as authentication refuses a request without a key, its body still to come.
  app.addHook('onRequest', async (_request, reply) => {
    await reply.code(401).send({ code: 'unauthorized' });
  });
  app.post('/echo', async (request) => ({ echoed: request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const socket = connect(port, '127.0.0.1');
  try {
    let answer = '';
    socket.on('data', (data) => {
      answer += data.toString();
    });
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a":',
    );
    // Well past the deadline and several sweeps.
    await new Promise((resolve) => setTimeout(resolve, 200 + 5 * SWEEP_MS));
    assert.match(answer, /^HTTP\/1\.1 401 /);
    assert.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, answer);
  } finally {
    socket.destroy();
    await app.close();
  }
});

test('a body that stops coming is answered 408 within a sweep of its deadline', async () => {
  const app = Fastify({ logger: { level: 'silent' } });
  addBodyDeadline(app, 300);
  app.post('/echo', async (request) => ({ echoed: request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  try {
    // Two at once: one sweep answers every request past its deadline.
    const answers = await Promise.all(
      [0, 1].map(async () => {
        const started = performance.now();
        const socket = connect(port, '127.0.0.1');
        socket.write(
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{',
        );
        let answer = '';
        socket.on('data', (data) => {
          answer += data.toString();
        });
        await once(socket, 'close');
        return { answer, elapsed: performance.now() - started };
      }),
    );
    for (const { answer, elapsed } of answers) {
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.ok(elapsed >= 290 && elapsed < 300 + SWEEP_MS + 500, `closed after ${Math.round(elapsed)} ms`);
    }
  } finally {
    await app.close();
  }
});
