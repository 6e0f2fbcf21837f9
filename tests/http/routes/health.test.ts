/**
 * GET /healthz and GET /readyz: no auth; readiness follows the store (a closed or hung store
 * makes it 503 with the documented error body plus checks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILT_IN_PLANS } from '../../../src/accounts/plans.ts';
import { SystemClock } from '../../../src/adapters/clock/system.ts';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory.ts';
import { buildApp } from '../../../src/http/app.ts';
import type { Store } from '../../../src/store.ts';
import { testApp } from '../../helpers/app.ts';

test('healthz: 200 {"status":"ok"} without auth, with a request id', async () => {
  const t = await testApp();
  try {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
    assert.ok(response.headers['x-request-id']);
  } finally {
    await t.close();
  }
});

test('readyz: 200 while the store answers, 503 not_ready with checks once it is closed', async () => {
  const t = await testApp();
  try {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ok', checks: { store: 'ok' } });

    await t.store.close();
    const down = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(down.statusCode, 503);
    const body = down.json();
    assert.deepEqual(Object.keys(body).sort(), ['checks', 'code', 'errors', 'message', 'request_id']);
    assert.equal(body.code, 'not_ready');
    assert.deepEqual(body.errors, []);
    assert.deepEqual(body.checks, { store: 'error' });
    assert.equal(body.request_id, down.headers['x-request-id']);
  } finally {
    await t.close();
  }
});

test('readyz: a store that never answers is 503 within the bound, not a hung probe', async () => {
  const app = buildApp({
    store: { findApiKeyByHash: async () => null, ping: () => new Promise(() => {}) } as unknown as Store,
    service: {
      verifyOne: async () => assert.fail(),
      verifyBulk: async () => assert.fail(),
      quotaState: async () => assert.fail(),
    },
    rateLimiter: new MemoryRateLimiter(new SystemClock()),
    plans: BUILT_IN_PLANS,
  });
  try {
    const started = Date.now();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json().checks, { store: 'error' });
    assert.ok(Date.now() - started < 5000);
  } finally {
    await app.close();
  }
});

test('readyz: custom checks (the cache, later) are reported each', async () => {
  const t = await testApp({ ready: async () => ({ store: 'ok', cache: 'error' }) });
  try {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json().checks, { store: 'ok', cache: 'error' });
  } finally {
    await t.close();
  }
});
