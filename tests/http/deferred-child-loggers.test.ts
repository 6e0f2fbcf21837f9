/**
 * Requests' loggers made on first use: a request that writes no line of its own costs no child
 * logger, and one that does gets exactly what Fastify's own child would give it (its request id,
 * the redaction and masking every line gets, a route's own level).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { createLogger } from '../../src/container/logger.ts';
import { deferredChildLoggers } from '../../src/http/deferred-child-loggers.ts';
import { LogCapture } from './log-capture.ts';

async function appWith(level: 'info' | 'debug') {
  const logs = new LogCapture();
  const log = createLogger({ level, stream: logs });
  let childrenMade = 0;
  // Counts requests' children (every child inherits this method; Fastify makes its own at start).
  const child = log.child;
  log.child = function (this: typeof log, ...args: Parameters<typeof child>) {
    if ('reqId' in args[0]) childrenMade += 1;
    return child.apply(this, args);
  } as typeof log.child;
  let next = 0;
  const app = Fastify({
    loggerInstance: log,
    childLoggerFactory: deferredChildLoggers(),
    genReqId: () => `req-${++next}`,
    disableRequestLogging: true,
  });
  app.get('/quiet', async (request) => {
    request.log.debug({ email: 'someone@example.com' }, 'a debug line');
    return { ok: true };
  });
  app.get('/talks', async (request) => {
    request.log.info({ key: 'mv_live_secret', note: 'about alice@example.com' }, 'first');
    request.log.child({ part: 'inner' }).warn('second');
    request.log.error('third');
    return { ok: true };
  });
  app.get('/probe', { logLevel: 'warn' }, async (request) => {
    request.log.info('not written at warn');
    request.log.warn('written');
    return { ok: true };
  });
  await app.ready();
  return { app, logs, children: () => childrenMade };
}

test('a request that writes nothing makes no child logger; a debug line below the level neither', async () => {
  const { app, logs, children } = await appWith('info');
  for (let i = 0; i < 3; i++) assert.equal((await app.inject({ url: '/quiet' })).statusCode, 200);
  assert.equal(children(), 0);
  assert.equal(logs.lines.length, 0);
  await app.close();
});

test('the first line makes the child once; every line carries the request id, redacted and masked', async () => {
  const { app, logs, children } = await appWith('info');
  assert.equal((await app.inject({ url: '/talks' })).statusCode, 200);
  assert.equal((await app.inject({ url: '/talks' })).statusCode, 200);
  const entries = logs.entries();
  assert.deepEqual(
    entries.map((entry) => [entry.reqId, entry.msg]),
    [
      ['req-1', 'first'],
      ['req-1', 'second'],
      ['req-1', 'third'],
      ['req-2', 'first'],
      ['req-2', 'second'],
      ['req-2', 'third'],
    ],
  );
  // One request child per request (the inner child is made from it, not from the root).
  assert.equal(children(), 2);
  assert.equal(entries[0]!.key, '[redacted]');
  assert.equal(entries[0]!.note, 'about [address]');
  assert.equal(entries[1]!.part, 'inner');
  assert.equal(entries[1]!.level, 40);
  await app.close();
});

test('a debug logger writes debug lines through the deferred child, addresses whole', async () => {
  const { app, logs } = await appWith('debug');
  await app.inject({ url: '/quiet' });
  const [entry] = logs.entries();
  assert.equal(entry?.msg, 'a debug line');
  assert.equal(entry?.reqId, 'req-1');
  assert.equal(entry?.email, 'someone@example.com');
  await app.close();
});

test("a route's own level still holds", async () => {
  const { app, logs } = await appWith('info');
  await app.inject({ url: '/probe' });
  assert.deepEqual(
    logs.entries().map((entry) => [entry.reqId, entry.msg]),
    [['req-1', 'written']],
  );
  await app.close();
});
