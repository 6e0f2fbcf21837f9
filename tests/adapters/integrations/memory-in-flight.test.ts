/**
 * The in-process in-flight limiter: never more holders of a key than its limit, waiters served in
 * order, other keys independent, and a release counted once however often it is called.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryInFlightLimiter } from '../../../src/adapters/integrations/memory-in-flight.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('at most `limit` hold a key; the next waiter gets the slot a release frees, in order', async () => {
  const limiter = new MemoryInFlightLimiter();
  const held = await Promise.all([1, 2, 3].map(() => limiter.acquire('acct', 3)));
  const order: number[] = [];
  const waiting = [4, 5].map(async (n) => {
    const release = await limiter.acquire('acct', 3);
    order.push(n);
    return release;
  });
  await tick();
  assert.deepEqual(order, [], 'the fourth waits while three hold the key');
  const other = await limiter.acquire('other', 3);
  held[0]!();
  held[0]!();
  await tick();
  assert.deepEqual(order, [4], 'one release frees one slot, however often it is called');
  held[1]!();
  const [fourth, fifth] = await Promise.all(waiting);
  assert.deepEqual(order, [4, 5]);
  for (const release of [held[2]!, fourth!, fifth!, other]) release();
  // All free again: three at once without waiting.
  const again = await Promise.all([1, 2, 3].map(() => limiter.acquire('acct', 3)));
  assert.equal(again.length, 3);
});

test('under load, the number holding a key never passes the limit', async () => {
  const limiter = new MemoryInFlightLimiter();
  let holding = 0;
  let peak = 0;
  await Promise.all(
    Array.from({ length: 100 }, async (_, i) => {
      const release = await limiter.acquire('acct', 10);
      holding += 1;
      peak = Math.max(peak, holding);
      await new Promise((resolve) => setTimeout(resolve, i % 3));
      holding -= 1;
      release();
    }),
  );
  assert.equal(peak, 10);
});
