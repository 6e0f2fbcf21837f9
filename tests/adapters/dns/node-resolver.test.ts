import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { answerForErrorCode, NodeDnsResolver } from '../../../src/adapters/dns/node-resolver.ts';
import { type DnsWorld, startDnsWorld } from '../../mailworld/dns-server.ts';

let world: DnsWorld;
let resolver: NodeDnsResolver;

// Enough MX records that the answer cannot fit a UDP datagram: c-ares must retry over TCP.
const BIG_MX = Array.from({ length: 120 }, (_, i) => ({
  exchange: `mail-exchanger-number-${i}.big-mx.test`,
  priority: i,
}));

before(async () => {
  world = await startDnsWorld({ 'big-mx.test': { mx: BIG_MX } });
  resolver = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 200, tries: 2, mxTtlSeconds: 123 });
});

after(() => world.close());

describe('NodeDnsResolver against the DNS world', () => {
  test('MX records as DNS gives them, with the configured MX TTL', async () => {
    assert.deepEqual(await resolver.resolveMx('multi-mx.test'), {
      kind: 'ok',
      ttlSeconds: 123,
      records: [
        { exchange: 'b.multi-mx.test', priority: 20 },
        { exchange: 'a.multi-mx.test', priority: 10 },
        { exchange: 'c.multi-mx.test', priority: 30 },
      ],
    });
  });

  test('a null MX comes back as one record with an empty exchange', async () => {
    const answer = await resolver.resolveMx('nullmx.test');
    assert.deepEqual(answer.kind === 'ok' && answer.records, [{ exchange: '', priority: 0 }]);
  });

  test('A and AAAA answers carry the smallest record TTL', async () => {
    assert.deepEqual(await resolver.resolveA('a-only.test'), {
      kind: 'ok',
      records: ['192.0.2.10', '192.0.2.11'],
      ttlSeconds: 90,
    });
    assert.deepEqual(await resolver.resolveAaaa('aaaa-only.test'), {
      kind: 'ok',
      records: ['2001:db8::10'],
      ttlSeconds: 300,
    });
  });

  test('an A query follows a CNAME to the real host', async () => {
    const answer = await resolver.resolveA('mx.cname-mx.test');
    assert.deepEqual(answer.kind === 'ok' && answer.records, ['127.0.0.2']);
  });

  test('NXDOMAIN and NODATA stay distinct', async () => {
    assert.deepEqual(await resolver.resolveMx('nxdomain.test'), { kind: 'nxdomain', ttlSeconds: 300 });
    assert.deepEqual(await resolver.resolveMx('nodata.test'), { kind: 'nodata', ttlSeconds: 300 });
    assert.deepEqual(await resolver.resolveAaaa('a-only.test'), { kind: 'nodata', ttlSeconds: 300 });
  });

  test('SERVFAIL and REFUSED are failures with a retry hint', async () => {
    assert.deepEqual(await resolver.resolveMx('servfail.test'), {
      kind: 'error',
      failure: 'servfail',
      retry: true,
    });
    assert.deepEqual(await resolver.resolveA('refused.test'), {
      kind: 'error',
      failure: 'refused',
      retry: true,
    });
  });

  test('an answer too big for UDP arrives whole over TCP', async () => {
    // UDP, truncation, then a TCP connection: roomier bounds than the suite's, for a busy machine.
    const roomy = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 2000, tries: 2 });
    const answer = await roomy.resolveMx('big-mx.test');
    assert.equal(answer.kind, 'ok');
    assert.equal(answer.kind === 'ok' && answer.records.length, BIG_MX.length);
  });

  test('the deadline bounds a lookup even when c-ares would wait longer', async () => {
    const slow = new NodeDnsResolver({
      servers: [world.servers],
      timeoutMs: 1000,
      tries: 3,
      deadlineMs: 250,
    });
    const before = world.queries;
    const started = performance.now();
    const answer = await slow.resolveMx('blackhole.test');
    const elapsed = performance.now() - started;
    assert.deepEqual(answer, { kind: 'error', failure: 'timeout', retry: true });
    assert.ok(elapsed >= 240 && elapsed < 5000, `took ${elapsed} ms`);
    assert.ok(world.queries > before, 'the query did reach the server');
    slow.cancel();
  });

  test('a closed port is refused', async () => {
    const gone = await startDnsWorld();
    await gone.close();
    const dead = new NodeDnsResolver({ servers: [gone.servers], timeoutMs: 200, tries: 1 });
    assert.deepEqual(await dead.resolveMx('multi-mx.test'), {
      kind: 'error',
      failure: 'refused',
      retry: true,
    });
  });

  test('many concurrent lookups all get their own answer', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `c${i}.bench.test`);
    const answers = await Promise.all(names.map((name) => resolver.resolveMx(name)));
    for (const answer of answers) {
      assert.deepEqual(answer.kind === 'ok' && answer.records, [{ exchange: 'mx.bench.test', priority: 10 }]);
    }
  });

  test('at most maxInFlight queries are on the wire; the others wait their turn', async () => {
    const capped = new NodeDnsResolver({
      servers: [world.servers],
      tries: 1,
      deadlineMs: 150,
      maxInFlight: 2,
    });
    const before = world.queries;
    const lookups = Promise.all(Array.from({ length: 6 }, () => capped.resolveMx('blackhole.test')));
    await new Promise((resolve) => setTimeout(resolve, 75));
    assert.equal(world.queries - before, 2);
    const answers = await lookups;
    assert.equal(world.queries - before, 6);
    for (const answer of answers)
      assert.deepEqual(answer, { kind: 'error', failure: 'timeout', retry: true });
    capped.cancel();
  });

  test('hostile names are values, not exceptions; a NUL is never sent truncated', async () => {
    const before = world.queries;
    assert.deepEqual(await resolver.resolveMx('multi-mx.test\u0000x'), {
      kind: 'error',
      failure: 'network',
      retry: true,
    });
    assert.equal(world.queries, before);
    assert.equal((await resolver.resolveA('x'.repeat(1_000_000))).kind, 'error');
    assert.equal((await resolver.resolveAaaa('\ud800.test')).kind === 'ok', false);
    assert.equal((await resolver.resolveMx('')).kind === 'ok', false);
  });
});

describe('NodeDnsResolver configuration', () => {
  test('servers take host[:port] and bracketed IPv6 forms', () => {
    assert.doesNotThrow(
      () => new NodeDnsResolver({ servers: ['127.0.0.1', '127.0.0.1:5353', '[::1]:53', '::1'] }),
    );
  });

  test('a malformed server address is a configuration error at start-up', () => {
    assert.throws(() => new NodeDnsResolver({ servers: ['not an address'] }));
  });

  test('c-ares error codes map to answers', () => {
    assert.deepEqual(answerForErrorCode('ENOTFOUND', 60), { kind: 'nxdomain', ttlSeconds: 60 });
    assert.deepEqual(answerForErrorCode('ENODATA', 60), { kind: 'nodata', ttlSeconds: 60 });
    const failures = {
      ESERVFAIL: 'servfail',
      ETIMEOUT: 'timeout',
      ECONNREFUSED: 'refused',
      EREFUSED: 'refused',
      EBADRESP: 'network',
      ECANCELLED: 'network',
      [String(undefined)]: 'network',
    };
    for (const [code, failure] of Object.entries(failures)) {
      assert.deepEqual(answerForErrorCode(code, 60), { kind: 'error', failure, retry: true }, code);
    }
  });
});
