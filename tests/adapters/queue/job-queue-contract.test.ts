/**
 * One JobQueue contract, run against the in-process queue and the BullMQ queue, then what only
 * BullMQ promises: one queue shared by several processes, jobs of a killed worker recovered by
 * another, and an enqueue that fails fast while Redis is down. The Redis part needs REDIS_URL
 * (skipped without it, except under CI); keys live under this run's prefix and are deleted after.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BullmqQueue, type BullmqQueueOptions } from '../../../src/adapters/queue/bullmq/bullmq-queue.ts';
import { InProcessQueue } from '../../../src/adapters/queue/local/in-process-queue.ts';
import type { JobQueue } from '../../../src/jobs/ports.ts';
import { requireRedis } from '../../helpers/services.ts';
import { type TestRedis, testRedis } from '../redis/redis-test-keys.ts';
import { jobQueueContract } from './job-queue-contract.ts';
import {
  CASE_TIMEOUT,
  errorLog,
  gate,
  job,
  recorder,
  SETTLE_MS,
  sleep,
  waitFor,
} from './queue-test-helpers.ts';

const redis = await requireRedis('BullMQ job queue suite');

jobQueueContract({ name: 'in-process', create: (_scope, options) => new InProcessQueue(options) });

let env: TestRedis | undefined;
let prefix = '';

if (redis.url !== null) {
  const url = redis.url;
  before(async () => {
    env = testRedis(url);
    await env.connect(); // cleanup() deletes this run's keys through it
    // BullMQ adds its own `:` after the prefix.
    prefix = env.prefix('queue').slice(0, -1);
  });
  after(() => env?.cleanup());
}

/** A BullMQ queue of this run; instances of one `queueName` share it. */
const bullmq = (queueName: string, options: Partial<BullmqQueueOptions> = {}): BullmqQueue =>
  new BullmqQueue({ url: redis.url ?? '', prefix, queueName, ...options });

jobQueueContract({
  name: 'bullmq',
  create: (scope, options) => bullmq(scope, options),
  skip: redis.skipReason,
});

describe('BullmqQueue without Redis', () => {
  // Nothing listens on port 1: every connection attempt is refused.
  const unreachable = 'redis://127.0.0.1:1';

  it('rejects an enqueue instead of hanging, and still closes', CASE_TIMEOUT, async () => {
    const log = errorLog();
    const queue = new BullmqQueue({ url: unreachable, onError: log.onError });
    await assert.rejects(queue.enqueue(job('lst_a')), /did not answer/);
    await queue.close();
    assert.ok(log.errors.every((e) => e.listId === undefined && e.willRetry === undefined));
  });

  it('reports a consumer’s connection errors to onError and still closes', CASE_TIMEOUT, async () => {
    const log = errorLog();
    const queue = new BullmqQueue({ url: unreachable, onError: log.onError });
    queue.consume({ list: async () => {} }, { concurrency: 2 });
    await waitFor(() => log.errors.length > 0, 'a connection error');
    await queue.close();
    assert.match(String(log.errors[0]?.error), /ECONNREFUSED/);
  });
});

if (redis.skipReason !== undefined) {
  it('BullmqQueue beyond the contract', { skip: redis.skipReason }, () => {});
} else {
  describe('BullmqQueue beyond the contract', () => {
    let opened: JobQueue[] = [];
    const open = (queueName: string, options: Partial<BullmqQueueOptions> = {}): BullmqQueue => {
      const queue = bullmq(queueName, options);
      opened.push(queue);
      return queue;
    };
    after(async () => {
      await Promise.all(opened.map((queue) => queue.close()));
      opened = [];
    });

    it(
      'carries ids from producers to a consumer in other instances, one run per pending id',
      CASE_TIMEOUT,
      async () => {
        const name = 'shared';
        const [first, second, consumer] = [open(name), open(name), open(name)];
        const blocker = gate();
        const runs = recorder((listId) => (listId === 'lst_blocker' ? blocker.wait : undefined));
        consumer.consume({ list: runs.handler }, { concurrency: 1 });
        await first.enqueue(job('lst_blocker'));
        await waitFor(() => runs.count('lst_blocker') === 1, 'the blocker to start');
        await Promise.all([
          first.enqueue(job('lst_a')),
          second.enqueue(job('lst_a')),
          second.enqueue(job('lst_b')),
        ]);
        blocker.open();
        await waitFor(() => runs.finished.length === 3, 'every run');
        await sleep(SETTLE_MS);
        assert.deepEqual(runs.started, ['lst_blocker', 'lst_a', 'lst_b']);
      },
    );

    it('runs, in another worker, a job whose worker was killed (kill -9) mid-run', CASE_TIMEOUT, async () => {
      const name = 'stalled';
      await open(name).enqueue(job('lst_a'));
      const script = fileURLToPath(new URL('./bullmq-consumer-process.ts', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', script, redis.url ?? '', prefix, name], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        let output = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
        });
        await waitFor(() => output.includes('started lst_a\n'), 'the child to start lst_a');
        child.kill('SIGKILL');
        await once(child, 'exit');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      const log = errorLog();
      const runs = recorder();
      const rescuer = open(name, { lockDurationMs: 1_000, stalledIntervalMs: 500, onError: log.onError });
      rescuer.consume({ list: runs.handler }, { concurrency: 1 });
      await waitFor(() => runs.finished.includes('lst_a'), 'the rescuer to run lst_a');
      assert.deepEqual(runs.started, ['lst_a']);
      assert.ok(
        log.errors.some((e) => e.listId === 'lst_a' && e.willRetry === true),
        'stall reported',
      );
    });
  });
}
