/**
 * Hostile input: thousands of generated malformed requests against the verification
 * routes — random bytes, truncated and mutated JSON, deep nesting, bodies over the limit, wrong
 * types, lone surrogates, awkward Unicode, wrong content types, methods and credentials. None may
 * get a 5xx; every error must have the documented body; every 200 a well-formed result; the usage
 * charged must match the verifications answered; the server must keep answering.
 *
 * Replay a run with HOSTILE_SEED=<seed> (printed at the start); HOSTILE_CASES sets how many random
 * cases are drawn (default 2,000, on top of the fixed ones).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { responseProblems } from './hostile-checks.ts';
import { fixedCases } from './hostile-fixed.ts';
import { type HostileCase, randomCases } from './hostile-generators.ts';
import { rawExchange, requestBytes } from './hostile-raw-http.ts';
import { runCases, type UsageLedger } from './hostile-runner.ts';

const DEFAULT_SEED = 20_261_122;
const SEED = Number.parseInt(process.env.HOSTILE_SEED ?? String(DEFAULT_SEED), 10);
const RANDOM_COUNT = Number.parseInt(process.env.HOSTILE_CASES ?? '2000', 10);
// Names the DNS world answers at once (MX, A only, null MX, wildcard, NXDOMAIN, SERVFAIL — whose
// dns_error results are given back): no case waits on a real resolver.
const DOMAINS = [
  'multi-mx.test',
  'a-only.test',
  'nullmx.test',
  'hostile.bench.test',
  'servfail.test',
  'nowhere.test',
  'gmial.com',
];

describe('hostile input', { concurrency: false }, () => {
  let world: TestApp;
  let revokedKey: string;
  const ledger: UsageLedger = { verifications: 0, bulkRequests: 0 };
  const fixed = fixedCases({ domains: DOMAINS });
  const random = randomCases(SEED, RANDOM_COUNT, { domains: DOMAINS });

  before(async () => {
    console.log(
      `hostile input: seed ${SEED} (replay with HOSTILE_SEED=${SEED}), ${fixed.length} fixed + ${random.length} random cases`,
    );
    world = await testApp({
      quota: 100_000_000,
      bulkQuota: 10_000_000,
      rate: 1_000_000,
      // Short timeouts so stalled clients are dropped within the test's time.
      appOptions: { requestTimeoutMs: 2_000, connectionTimeoutMs: 1_000 },
    });
    const revoked = await world.addKey({ name: 'revoked' });
    await world.store.revokeApiKey(revoked.record.id);
    revokedKey = revoked.key;
  });
  after(async () => world?.close());

  const keys = () => ({ key: world.key, revoked: revokedKey });

  test('every malformed request gets a documented answer, never a 5xx (inject)', async () => {
    assert.ok(fixed.length + random.length >= 2_000, 'at least 2,000 hostile requests');
    const failures = [
      ...(await runCases('fixed', fixed, { app: world.app, keys: keys(), ledger })),
      ...(await runCases(`random(seed ${SEED})`, random, { app: world.app, keys: keys(), ledger })),
    ];
    assert.equal(
      failures.length,
      0,
      `${failures.length} failing cases:\n${failures.slice(0, 25).join('\n\n')}`,
    );
  });

  test('no prototype was polluted by the bodies', () => {
    const probe: Record<string, unknown> = {};
    for (const name of ['polluted', 'email', 'emails', 'admin', 'x'])
      assert.equal(probe[name], undefined, name);
  });

  test('over a real socket: a sample, raw invalid UTF-8 bodies, chunked and lying bodies', async () => {
    await world.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (world.app.server.address() as { port: number }).port;
    const onTheWire = (c: HostileCase) =>
      (c.body?.length ?? 0) <= 64 * 1024 ||
      c.kind.startsWith('body-over-limit') ||
      c.kind === 'body-at-limit';
    const sample = [
      ...fixed.filter(onTheWire),
      ...random.filter((c, i) => i % 10 === 0 || c.kind === 'unicode-raw-bytes').filter(onTheWire),
    ];
    assert.ok(
      sample.some((c) => c.kind === 'invalid-utf8') && sample.some((c) => c.kind === 'wtf8-surrogate'),
    );
    const failures = await runCases('socket', sample, { port, keys: keys(), ledger });
    assert.equal(
      failures.length,
      0,
      `${failures.length} failing cases:\n${failures.slice(0, 25).join('\n\n')}`,
    );
  });

  test('over a real socket: stalled, chunked, oversized and malformed requests end cleanly', async () => {
    const port = (world.app.server.address() as { port: number }).port;
    const auth = { authorization: `Bearer ${world.key}`, 'content-type': 'application/json' };
    const head = (headers: Record<string, string>) =>
      requestBytes('POST', '/api/v1/verify', { ...auth, ...headers });
    const body = Buffer.from(`{"email":"jane@${DOMAINS[0]}"}`);
    const chunk = (bytes: Buffer) =>
      Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
    const stall = { deadlineMs: 8_000, pauseMs: Number.POSITIVE_INFINITY };
    const quick = { deadlineMs: 8_000 };

    // Stalled clients first, in parallel: they must be dropped (or answered 408) by the server's
    // timeouts while a normal request still gets through.
    const stalled = Promise.all([
      rawExchange(port, [head({ 'content-length': '100' }), body.subarray(0, 10)], {
        ...stall,
        pauseMs: 0,
      }).then(async (first) => first),
      rawExchange(port, [Buffer.from('POST /api/v1/verify HTTP/1.1\r\nHost: x\r\n'), Buffer.alloc(0)], stall),
      rawExchange(
        port,
        [
          Buffer.concat([head({ 'transfer-encoding': 'chunked' }), chunk(body.subarray(0, 5))]),
          Buffer.alloc(0),
        ],
        stall,
      ),
    ]);
    const duringStall = await rawExchange(
      port,
      [Buffer.concat([head({ 'content-length': String(body.length) }), body])],
      quick,
    );
    assert.equal(duringStall.response?.status, 200, 'a normal request is served while slow clients hang on');
    ledger.verifications += JSON.parse(duringStall.response?.body ?? '{}').reason === 'dns_error' ? 0 : 1;
    for (const exchange of await stalled) {
      assert.equal(exchange.timedOut, false, 'a stalled request is dropped by the server, not left open');
      if (exchange.response !== undefined) {
        assert.ok(
          [400, 408].includes(exchange.response.status),
          `stalled request answered ${exchange.response.status}`,
        );
        assert.deepEqual(responseProblems('other', 'POST', { statuses: [400, 408] }, exchange.response), []);
      }
    }

    const answered = async (
      name: string,
      pieces: Buffer[],
      statuses: number[],
      endpoint: 'verify' | 'other' = 'other',
    ) => {
      const exchange = await rawExchange(port, pieces, quick);
      assert.ok(
        exchange.response !== undefined,
        `${name}: no response (closed: ${exchange.closed}, timed out: ${exchange.timedOut})`,
      );
      assert.deepEqual(responseProblems(endpoint, 'POST', { statuses }, exchange.response), [], name);
      return exchange.response;
    };
    const chunked = await answered(
      'chunked body',
      [head({ 'transfer-encoding': 'chunked' }), chunk(body), Buffer.from('0\r\n\r\n')],
      [200],
      'verify',
    );
    ledger.verifications += JSON.parse(chunked.body).reason === 'dns_error' ? 0 : 1;
    const big = Buffer.alloc(64 * 1024, 'x');
    await answered(
      'chunked body over 1 MB',
      [head({ 'transfer-encoding': 'chunked' }), ...Array.from({ length: 18 }, () => chunk(big))],
      [413],
    );
    await answered(
      '5 MB announced, 10 bytes sent',
      [head({ 'content-length': String(5 * 1024 * 1024) }), body.subarray(0, 10)],
      [413],
    );
    await answered(
      'Content-Length shorter than the body',
      [Buffer.concat([head({ 'content-length': '5' }), body])],
      [400],
    );
    await answered(
      'Content-Length not a number',
      [Buffer.concat([head({ 'content-length': 'abc' }), body])],
      [400],
    );
    await answered(
      'Content-Length and Transfer-Encoding',
      [Buffer.concat([head({ 'content-length': '5', 'transfer-encoding': 'chunked' }), body])],
      [400],
    );
    await answered('malformed request line', [Buffer.from('GARBAGE\r\n\r\n')], [400]);
    await answered(
      'bad header name',
      [Buffer.from('POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n')],
      [400],
    );
    await answered('20 KB header', [head({ 'x-padding': 'x'.repeat(20_000) })], [400, 431]);
  });

  test('usage charged equals the verifications answered with 200, and bulk requests likewise', async () => {
    const usage = await world.usage();
    assert.ok(ledger.verifications > 500, `enough verifications to mean something (${ledger.verifications})`);
    assert.deepEqual(usage, ledger);
  });

  test('the server still answers a normal request, and the revoked key stays refused', async () => {
    const email = `  Jane.Doe@${DOMAINS[0]} `;
    const response = await world.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: world.auth(),
      payload: { email },
    });
    assert.equal(response.statusCode, 200);
    // The domain has MX hosts and the probe is off in the test app: mailbox not checked.
    assert.deepEqual(
      { email: response.json().email, status: response.json().status, reason: response.json().reason },
      { email: email.trim(), status: 'PROBABLY_VALID', reason: 'probe_skipped' },
    );
    const refused = await world.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: world.auth(revokedKey),
      payload: { email },
    });
    assert.equal(refused.statusCode, 401);
  });
});
