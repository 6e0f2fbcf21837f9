/**
 * `mailvet_queue_jobs`, read from the job queue at scrape time: the in-process queue and the BullMQ
 * one (with REDIS_URL; skipped with its reason otherwise), jobs waiting, then running, then gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus.ts';
import { BullmqQueue } from '../../src/adapters/queue/bullmq/bullmq-queue.ts';
import { InProcessQueue } from '../../src/adapters/queue/local/in-process-queue.ts';
import type { JobQueue } from '../../src/jobs/ports.ts';
import { gate, job } from '../adapters/queue/queue-test-helpers.ts';
import { type TestRedis, testRedis } from '../adapters/redis/redis-test-keys.ts';
import { requireRedis } from '../helpers/services.ts';
import { familyOf, samples, sampleValue } from './metrics-scrape.ts';

const redis = await requireRedis('BullMQ queue depth');

/** The gauge's three figures in a fresh scrape. */
async function depth(
  metrics: PrometheusMetrics,
): Promise<{ waiting: number; active: number; delayed: number }> {
  const text = await metrics.scrape();
  return {
    waiting: sampleValue(text, 'mailvet_queue_jobs', { state: 'waiting' }),
    active: sampleValue(text, 'mailvet_queue_jobs', { state: 'active' }),
    delayed: sampleValue(text, 'mailvet_queue_jobs', { state: 'delayed' }),
  };
}

/** Scrapes until the figures are `wanted` (a bound for a failing case, not a timing assertion). */
async function depthBecomes(
  metrics: PrometheusMetrics,
  wanted: { waiting: number; active: number; delayed: number },
): Promise<void> {
  let seen = await depth(metrics);
  for (let i = 0; i < 200 && JSON.stringify(seen) !== JSON.stringify(wanted); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await depth(metrics);
  }
  assert.deepEqual(seen, wanted);
}

/** Three jobs waiting; two run (held at a gate), one waits; all done once the gate opens. */
async function waitingThenActive(queue: JobQueue): Promise<void> {
  const metrics = new PrometheusMetrics();
  metrics.queueDepthFrom(() => queue.counts());
  for (const id of ['lst_a', 'lst_b', 'lst_c']) await queue.enqueue(job(id));
  await depthBecomes(metrics, { waiting: 3, active: 0, delayed: 0 });
  const held = gate();
  queue.consume({ list: () => held.wait }, { concurrency: 2 });
  await depthBecomes(metrics, { waiting: 1, active: 2, delayed: 0 });
  held.open();
  await depthBecomes(metrics, { waiting: 0, active: 0, delayed: 0 });
}

describe('mailvet_queue_jobs', () => {
  test('in-process queue: waiting, then active while handlers run, then none', async () => {
    const queue = new InProcessQueue();
    try {
      await waitingThenActive(queue);
    } finally {
      await queue.close();
    }
  });

  describe('BullMQ queue', { skip: redis.skipReason }, () => {
    let env: TestRedis;
    let prefix = '';
    before(async () => {
      env = testRedis(redis.url!);
      await env.connect();
      // BullMQ adds its own `:` after the prefix.
      prefix = env.prefix('queue').slice(0, -1);
    });
    after(() => env.cleanup());

    test('the shared queue’s jobs: waiting, then active while handlers run, then none', async () => {
      const queue = new BullmqQueue({ url: redis.url!, prefix, queueName: 'depth' });
      try {
        await waitingThenActive(queue);
      } finally {
        await queue.close();
      }
    });
  });

  test('a queue that cannot say shows no figures rather than stale ones', async () => {
    const metrics = new PrometheusMetrics();
    let broken = false;
    metrics.queueDepthFrom(async () => {
      if (broken) throw new Error('Redis does not answer');
      return { waiting: 7, active: 1, delayed: 2 };
    });
    assert.deepEqual(await depth(metrics), { waiting: 7, active: 1, delayed: 2 });
    broken = true;
    const text = await metrics.scrape();
    assert.equal(familyOf(text, 'mailvet_queue_jobs')?.type, 'gauge');
    assert.equal(
      samples(text).some((sample) => sample.name === 'mailvet_queue_jobs'),
      false,
    );
  });
});
