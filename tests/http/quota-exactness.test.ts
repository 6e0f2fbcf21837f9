/**
 * The monthly quota is exact under concurrency: 200 concurrent requests against a
 * quota of 50 give exactly 50 results and 150 quota_exceeded, through inject and a real socket.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { testApp } from '../helpers/app.ts';
import { post, VERIFY } from './expect.ts';

const QUOTA = 50;
const REQUESTS = 200;

function tally(statuses: Array<{ status: number; code?: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of statuses) {
    const label = code === undefined ? String(status) : `${status} ${code}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

test(`${REQUESTS} concurrent requests (inject) against a quota of ${QUOTA}`, async () => {
  const t = await testApp({ quota: QUOTA, rate: 10_000 });
  try {
    const responses = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        post(t.app, VERIFY, { email: `user${i}@multi-mx.test` }, t.auth()),
      ),
    );
    const seen = responses.map((response) => ({
      status: response.statusCode,
      code: response.statusCode === 200 ? undefined : (response.json() as { code: string }).code,
    }));
    assert.deepEqual(tally(seen), { 200: QUOTA, '429 quota_exceeded': REQUESTS - QUOTA });
    const dnsErrors = responses.filter((r) => r.statusCode === 200 && r.json().reason === 'dns_error').length;
    assert.equal(
      dnsErrors,
      0,
      'no lookup failed (a dns_error result is refunded, which would blur the count)',
    );
    assert.equal((await t.usage()).verifications, QUOTA);
    const remaining = responses
      .filter((r) => r.statusCode === 200)
      .map((r) => Number(r.headers['x-quota-remaining']));
    assert.deepEqual(
      remaining.sort((a, b) => a - b),
      Array.from({ length: QUOTA }, (_, i) => i),
      'each charge saw its own count',
    );
  } finally {
    await t.close();
  }
});

test(`${REQUESTS} concurrent requests over real sockets against a quota of ${QUOTA}`, async () => {
  const t = await testApp({ quota: QUOTA, rate: 10_000 });
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const seen = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const response = await fetch(`http://127.0.0.1:${port}${VERIFY}`, {
          method: 'POST',
          headers: { ...t.auth(), 'content-type': 'application/json' },
          body: JSON.stringify({ email: `socket${i}@multi-mx.test` }),
        });
        const body = (await response.json()) as { code?: string; reason?: string };
        assert.notEqual(body.reason, 'dns_error', 'no lookup failed');
        return { status: response.status, code: body.code };
      }),
    );
    assert.deepEqual(tally(seen), { 200: QUOTA, '429 quota_exceeded': REQUESTS - QUOTA });
    assert.equal((await t.usage()).verifications, QUOTA);
  } finally {
    await t.close();
  }
});
