/**
 * The generic Redis-with-fallback wrapper on stand-in ports: routing per method, one warning per
 * outage, answers given as rejections passed on, and failures of the fallback itself not hidden.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withFallback } from '../../../src/adapters/redis/with-fallback.ts';

interface Counter {
  add(n: number): Promise<number>;
  name(): Promise<string>;
}

class Busy extends Error {}

function counter(name: string, failWith?: () => unknown): Counter & { total: number } {
  return {
    total: 0,
    async add(n) {
      if (failWith !== undefined) throw failWith();
      this.total += n;
      return this.total;
    },
    async name() {
      if (failWith !== undefined) throw failWith();
      return name;
    },
  };
}

test('every listed method runs on the shared port while it answers', async () => {
  const shared = counter('redis');
  const local = counter('memory');
  const warnings: string[] = [];
  const port = withFallback<Counter>(shared, local, {
    component: 'counter',
    fallback: 'a local counter',
    warn: (message) => warnings.push(message),
    methods: ['add', 'name'],
  });
  assert.equal(await port.add(2), 2);
  assert.equal(await port.name(), 'redis');
  assert.equal(shared.total, 2);
  assert.equal(local.total, 0);
  assert.equal(port.degraded, false);
  assert.deepEqual(warnings, []);
});

test('a failing shared port falls back for every method, warning once', async () => {
  const local = counter('memory');
  const warnings: string[] = [];
  const port = withFallback<Counter>(
    counter('redis', () => new Error('ECONNREFUSED')),
    local,
    {
      component: 'counter',
      fallback: 'a local counter',
      warn: (message) => warnings.push(message),
      methods: ['add', 'name'],
      retryIntervalMs: 60_000,
    },
  );
  assert.equal(await port.add(3), 3);
  assert.equal(await port.add(1), 4);
  assert.equal(await port.name(), 'memory');
  assert.equal(port.degraded, true);
  assert.deepEqual(warnings, [
    'counter: Redis unavailable (ECONNREFUSED); using a local counter until it is back',
  ]);
});

test('a rejection that is the port’s answer is passed on, not a fall-back', async () => {
  const local = counter('memory');
  const port = withFallback<Counter>(
    counter('redis', () => new Busy('busy')),
    local,
    {
      component: 'counter',
      fallback: 'a local counter',
      warn: () => assert.fail('no warning for an answer'),
      methods: ['add'],
      isAnswer: (error) => error instanceof Busy,
    },
  );
  await assert.rejects(port.add(1), Busy);
  assert.equal(port.degraded, false);
  assert.equal(local.total, 0);
});

test('when the fallback fails too, its error reaches the caller', async () => {
  const port = withFallback<Counter>(
    counter('redis', () => new Error('down')),
    counter('memory', () => new Error('memory broken')),
    { component: 'counter', fallback: 'a local counter', warn: () => {}, methods: ['add'] },
  );
  await assert.rejects(port.add(1), /memory broken/);
});
