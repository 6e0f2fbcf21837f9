/**
 * How the API benchmark folds a target's rounds into one figure: requests over time for the rate
 * (a slow round weighs by its length, not as one vote), CPU over requests, medians for latency.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineRounds } from '../../bench/api.ts';

test("a target's rounds: rate and CPU from the totals, latencies as medians", () => {
  const figures = combineRounds([
    { requests: 30_000, requestsPerSec: 10_000, p50Ms: 1, p99Ms: 4, failures: 0, cpuMicrosPerRequest: 50 },
    { requests: 90_000, requestsPerSec: 30_000, p50Ms: 2, p99Ms: 9, failures: 0, cpuMicrosPerRequest: 30 },
    { requests: 30_000, requestsPerSec: 10_000, p50Ms: 3, p99Ms: 5, failures: 1, cpuMicrosPerRequest: 50 },
  ]);
  // 150,000 requests in 3 + 3 + 3 s: 16,667 a second (the best round, as the benchmark once
  // reported, would say 30,000).
  assert.equal(Math.round(figures.requestsPerSec), 16_667);
  assert.equal(figures.cpuMicrosPerRequest, (30_000 * 50 + 90_000 * 30 + 30_000 * 50) / 150_000);
  assert.equal(figures.p50Ms, 2);
  assert.equal(figures.p99Ms, 5);
  assert.equal(figures.failures, 1);
});

test('rounds of different lengths weigh by their time; an even count takes the middle pair for medians', () => {
  const figures = combineRounds([
    { requests: 10_000, requestsPerSec: 10_000, p50Ms: 1, p99Ms: 2, failures: 0 },
    { requests: 60_000, requestsPerSec: 20_000, p50Ms: 3, p99Ms: 6, failures: 0 },
  ]);
  // 70,000 requests in 1 + 3 s: 17,500 a second, not the mean of the two rates (15,000).
  assert.equal(figures.requestsPerSec, 70_000 / 4);
  assert.equal(figures.p50Ms, 2);
  assert.equal(figures.p99Ms, 4);
  assert.equal(figures.cpuMicrosPerRequest, undefined, 'no CPU figure without one for every round');
});
