import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FallbackSwitch } from '../../../src/adapters/redis/fallback-switch.ts';

/** A switch on a hand-driven clock, recording its warnings. */
function manualSwitch(warn?: (message: string) => void) {
  const clock = { ms: 0 };
  const warnings: string[] = [];
  const fallback = new FallbackSwitch('thing', 'memory', warn ?? ((m) => warnings.push(m)), {
    retryIntervalMs: 1_000,
    now: () => clock.ms,
  });
  return { fallback, clock, warnings };
}

const failing = (): Promise<string> => Promise.reject(new Error('connection refused'));
const redis = (): Promise<string> => Promise.resolve('redis');
const memory = (): Promise<string> => Promise.resolve('memory');

describe('FallbackSwitch', () => {
  it('answers from memory when Redis fails, worded with the component and the reason', async () => {
    const { fallback, warnings } = manualSwitch();
    assert.equal(await fallback.run(redis, memory), 'redis');
    assert.equal(await fallback.run(failing, memory), 'memory');
    assert.deepEqual(warnings, [
      'thing: Redis unavailable (connection refused); using memory until it is back',
    ]);
  });

  it('sends one trial call per interval to Redis while fallen back, the rest straight to memory', async () => {
    const { fallback, clock } = manualSwitch();
    let redisCalls = 0;
    const counted = (): Promise<string> => {
      redisCalls++;
      return failing();
    };
    await fallback.run(counted, memory);
    for (let i = 0; i < 10; i++) assert.equal(await fallback.run(counted, memory), 'memory');
    assert.equal(redisCalls, 1);
    clock.ms += 1_000;
    await Promise.all(Array.from({ length: 10 }, () => fallback.run(counted, memory)));
    assert.equal(redisCalls, 2);
  });

  it('recovers on a successful trial, warning once', async () => {
    const { fallback, clock, warnings } = manualSwitch();
    await fallback.run(failing, memory);
    clock.ms += 1_000;
    assert.equal(await fallback.run(redis, memory), 'redis');
    assert.equal(fallback.degraded, false);
    assert.equal(await fallback.run(redis, memory), 'redis');
    assert.equal(warnings.length, 2);
    assert.equal(warnings[1], 'thing: Redis recovered; using it again');
  });

  it('does not count a slow call sent before the failure as a recovery', async () => {
    const { fallback, warnings } = manualSwitch();
    let finishSlow: (value: string) => void = () => {};
    const slow = fallback.run(() => new Promise<string>((resolve) => (finishSlow = resolve)), memory);
    await fallback.run(failing, memory);
    finishSlow('redis');
    assert.equal(await slow, 'redis');
    assert.equal(fallback.degraded, true);
    assert.equal(warnings.length, 1);
  });

  it('never lets a throwing logger or a synchronous throw reach the caller', async () => {
    const { fallback } = manualSwitch(() => {
      throw new Error('logger down');
    });
    const throwsAtOnce = (): Promise<string> => {
      throw new Error('bug in the Redis adapter');
    };
    assert.equal(await fallback.run(throwsAtOnce, memory), 'memory');
  });
});
