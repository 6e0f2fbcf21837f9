/**
 * The rolling request window (HubSpot's 10 seconds per portal), one contract on memory and on
 * Redis: a window's requests up to its limit go at once, the next is told how long until the
 * oldest leaves, keys are apart; on Redis two clients (two processes) share one window.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryRequestWindow } from '../../../src/adapters/request-window/memory.ts';
import { RedisRequestWindow } from '../../../src/adapters/request-window/redis.ts';
import type { RequestWindow } from '../../../src/integrations/ports.ts';
import { requireRedis } from '../../helpers/services.ts';

function contract(name: string, make: () => RequestWindow) {
  describe(name, () => {
    test('up to the limit at once, then the wait until the oldest leaves; keys apart', async () => {
      const window = make();
      const key = `portal-${randomUUID()}`;
      for (let i = 0; i < 3; i++) assert.equal(await window.reserve(key, 3, 60_000), 0);
      const wait = await window.reserve(key, 3, 60_000);
      assert.ok(wait > 50_000 && wait <= 60_001, `wait ${wait}`);
      assert.equal(await window.reserve(`${key}-other`, 3, 60_000), 0);
    });

    test('a short window empties', async () => {
      const window = make();
      const key = `portal-${randomUUID()}`;
      assert.equal(await window.reserve(key, 1, 30), 0);
      assert.ok((await window.reserve(key, 1, 30)) > 0);
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.equal(await window.reserve(key, 1, 30), 0);
    });
  });
}

contract('memory', () => new MemoryRequestWindow());

const redis = await requireRedis('request window on Redis');
if (redis.url === null) {
  test('request window on Redis', (t) => t.skip(redis.skipReason));
} else {
  const clients: Redis[] = [];
  const client = () => {
    const made = new Redis(redis.url!, { lazyConnect: false });
    clients.push(made);
    return made;
  };
  after(() => Promise.all(clients.map((each) => each.quit())));
  contract('redis', () => new RedisRequestWindow(client(), `mailvet-test:window:${randomUUID()}:`));

  test('two processes share one window on Redis', async () => {
    const prefix = `mailvet-test:window:${randomUUID()}:`;
    const one = new RedisRequestWindow(client(), prefix);
    const two = new RedisRequestWindow(client(), prefix);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).reserve('p', 4, 60_000)),
    );
    assert.equal(answers.filter((wait) => wait === 0).length, 4);
  });
}
