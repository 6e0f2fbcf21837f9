/**
 * POST /api/v1/verify/bulk, happy paths: order, duplicates verified and charged once, entries
 * echoed as submitted (trimmed), partial processing when the quota runs short, dns_error refunds.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { VerificationResult } from '../../../../src/verification/report.ts';
import { type TestApp, type TestAppOptions, testApp } from '../../../helpers/app.ts';
import { assertAccountingHeaders, BULK, post } from '../../expect.ts';

/** A test app whose verifier records the addresses it is asked to verify. */
async function countingApp(options: TestAppOptions): Promise<{ t: TestApp; verified: string[] }> {
  const verified: string[] = [];
  const t = await testApp({
    ...options,
    wrapVerifier: (inner) => ({
      verify: (email: string) => {
        verified.push(email);
        return inner.verify(email);
      },
    }),
  });
  return { t, verified };
}

test('results in submitted order; duplicates verified once and charged once; emails as submitted, trimmed', async () => {
  const { t, verified } = await countingApp({ quota: 100, rate: 100 });
  try {
    const emails = [
      'b@multi-mx.test',
      '  Jane@Multi-MX.test ',
      'not an address',
      'jane@multi-mx.test',
      'b@multi-mx.test',
      'jane@MULTI-MX.TEST',
      'x@a-only.test',
    ];
    const response = await post(t.app, BULK, { emails }, t.auth());
    assert.equal(response.statusCode, 200);
    const body = response.json() as { results: VerificationResult[]; unprocessed: string[] };
    assert.deepEqual(Object.keys(body).sort(), ['results', 'unprocessed']);
    assert.deepEqual(body.unprocessed, []);
    assert.deepEqual(
      body.results.map((result) => result.email),
      emails.map((email) => email.trim()),
    );
    // Jane@ and jane@ differ (the local part keeps its case); jane@multi-mx.test and
    // jane@MULTI-MX.TEST are one address (the domain does not).
    assert.equal(verified.length, 5, `verified: ${verified.join(', ')}`);
    assert.deepEqual(await t.usage(), { verifications: 5, bulkRequests: 1 });
    assert.equal(assertAccountingHeaders(response).quotaRemaining, 95);
    assert.equal(body.results[2]!.status, 'INVALID_SYNTAX');
    assert.equal(body.results[6]!.reason, 'implicit_mx');
    const { email: _a, duration_ms: _b, ...first } = body.results[3]!;
    const { email: _c, duration_ms: _d, ...duplicate } = body.results[5]!;
    assert.deepEqual(duplicate, first);
    for (const result of body.results) {
      assert.deepEqual(Object.keys(result).sort(), [
        'checks',
        'duration_ms',
        'email',
        'evidence',
        'reason',
        'score',
        'status',
      ]);
      assert.equal(Object.keys(result.checks).length, 11);
    }
  } finally {
    await t.close();
  }
});

test('partial bulk: 3 units left, 5 unique addresses → the first 3 processed, every other entry unprocessed in order', async () => {
  const t = await testApp({ quota: 5, rate: 100 });
  try {
    for (const email of ['used1@multi-mx.test', 'used2@multi-mx.test']) {
      assert.equal((await post(t.app, '/api/v1/verify', { email }, t.auth())).statusCode, 200);
    }
    const emails = [
      'a@multi-mx.test',
      'b@multi-mx.test',
      'd@multi-mx.test',
      'a@multi-mx.test',
      'c@multi-mx.test',
      ' d@multi-mx.test',
      'e@multi-mx.test',
      'b@multi-mx.test',
    ];
    const response = await post(t.app, BULK, { emails }, t.auth());
    assert.equal(response.statusCode, 200);
    const body = response.json() as { results: VerificationResult[]; unprocessed: string[] };
    assert.deepEqual(
      body.results.map((result) => result.email),
      [
        'a@multi-mx.test',
        'b@multi-mx.test',
        'd@multi-mx.test',
        'a@multi-mx.test',
        'd@multi-mx.test',
        'b@multi-mx.test',
      ],
    );
    // c and e did not fit; entries are listed as submitted (not trimmed), duplicates included.
    assert.deepEqual(body.unprocessed, ['c@multi-mx.test', 'e@multi-mx.test']);
    assert.deepEqual(await t.usage(), { verifications: 5, bulkRequests: 1 });
    assert.equal(assertAccountingHeaders(response).quotaRemaining, 0);
  } finally {
    await t.close();
  }
});

test('partial bulk: duplicates of unprocessed entries are all listed', async () => {
  const t = await testApp({ quota: 1, rate: 100 });
  try {
    const emails = [
      'a@multi-mx.test',
      'z@multi-mx.test',
      'a@multi-mx.test',
      'Z@multi-mx.test',
      'z@multi-mx.test',
    ];
    const body = (await post(t.app, BULK, { emails }, t.auth())).json() as {
      results: VerificationResult[];
      unprocessed: string[];
    };
    assert.deepEqual(
      body.results.map((result) => result.email),
      ['a@multi-mx.test', 'a@multi-mx.test'],
    );
    assert.deepEqual(body.unprocessed, ['z@multi-mx.test', 'Z@multi-mx.test', 'z@multi-mx.test']);
  } finally {
    await t.close();
  }
});

test('dns_error results are given back', async () => {
  const t = await testApp({ quota: 10, rate: 100 });
  try {
    const emails = ['x@servfail.test', 'y@multi-mx.test', 'z@servfail.test'];
    const response = await post(t.app, BULK, { emails }, t.auth());
    assert.equal(response.statusCode, 200);
    const body = response.json() as { results: VerificationResult[] };
    assert.deepEqual(
      body.results.map((result) => result.reason),
      ['dns_error', 'probe_skipped', 'dns_error'],
    );
    assert.deepEqual(await t.usage(), { verifications: 1, bulkRequests: 1 });
    assert.equal(assertAccountingHeaders(response).quotaRemaining, 9);
  } finally {
    await t.close();
  }
});

test('100 entries are accepted; over a real socket', async () => {
  const t = await testApp({ quota: 1000, rate: 100 });
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const emails = Array.from({ length: 100 }, (_, i) => `user${i}@multi-mx.test`);
    const response = await fetch(`http://127.0.0.1:${port}${BULK}`, {
      method: 'POST',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ emails }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { results: VerificationResult[]; unprocessed: string[] };
    assert.deepEqual(
      body.results.map((result) => result.email),
      emails,
    );
    assert.equal(assertAccountingHeaders(response).quotaRemaining, 900);
  } finally {
    await t.close();
  }
});
